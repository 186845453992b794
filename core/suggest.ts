/**
 * "Did you mean …?" for a mistyped name (a config key): the closest of the known names by edit
 * distance, when it is close enough to be the likely intent.
 *
 * The distance comes from `fastest-levenshtein` (one small file, no dependencies, MIT): commander
 * has an edit distance of its own for options, but does not export it, and a copy here would be
 * one more hand-written algorithm to test. Names are compared case-insensitively (`batchsize` is
 * `batchSize`), and a name counts as close within a quarter of its length (at least 2 edits):
 * far enough for a dropped or swapped letter, near enough not to suggest an unrelated key.
 */
import { distance } from 'fastest-levenshtein';

/** The known name closest to `word`, or null when none is close enough to suggest. */
export function closestName(word: string, known: readonly string[]): string | null {
  const w = word.toLowerCase();
  const limit = Math.max(2, Math.floor(w.length / 4));
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const k of known) {
    const d = distance(w, k.toLowerCase());
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return bestDistance <= limit ? best : null;
}

/** `; did you mean 'x'?` for `word` among `known`, or '' when nothing is close. */
export function didYouMean(word: string, known: readonly string[]): string {
  const c = closestName(word, known);
  return c === null ? '' : `; did you mean '${c}'?`;
}
