/**
 * Runs the CLI's `main` in this process with stdout and stderr captured — what the CLI tests
 * assert on (exit code, the one error line, nothing on stdout). Test support only.
 */
import { vi } from 'vitest';
import { main } from './main.ts';

export async function runCli(argv: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((s) => ((stdout += String(s)), true));
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((s) => ((stderr += String(s)), true));
  try {
    return { code: await main([...argv]), stdout, stderr };
  } finally {
    o.mockRestore();
    e.mockRestore();
    process.exitCode = undefined;
  }
}
