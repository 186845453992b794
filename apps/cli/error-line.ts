/**
 * The one line a usage or input error prints: `joinlab: <message>`.
 *
 * Messages quote what the user gave (`got '…'`, a path, a column name), and what the user gave
 * may hold a newline, a NUL or a terminal escape, or be a megabyte long — which would turn the
 * promised single line into several, or into a screenful. So control characters are written as
 * escapes (`\n`, `\x1b`) and a message longer than `MAX_CHARS` keeps its start and end with the
 * number of characters left out in between.
 */
export const MAX_CHARS = 1000;

const ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escape(c: string): string {
  const code = c.charCodeAt(0);
  return ESCAPES[c] ?? (code > 0xff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\x${code.toString(16).padStart(2, '0')}`);
}

/** `message` as one printable line of at most ~MAX_CHARS characters. */
export function oneLine(message: string): string {
  // eslint-disable-next-line no-control-regex
  let s = message.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, escape);
  if (s.length > MAX_CHARS) {
    const head = Math.floor(MAX_CHARS * 0.75);
    const tail = MAX_CHARS - head;
    s = `${s.slice(0, head)}…(${s.length - head - tail} characters left out)…${s.slice(-tail)}`;
  }
  return s;
}

export function errorLine(message: string): string {
  return `joinlab: ${oneLine(message)}\n`;
}
