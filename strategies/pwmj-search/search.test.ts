import { describe, expect, it } from 'vitest';
import type { MatchPredicate } from '../../core/pwmj-search.ts';
import { binaryFirstMatch } from './binary.ts';
import { linearFirstMatch } from './linear.ts';

/** matches(i) iff i >= answer, counting calls; calls outside [lo, hi) are a bug. */
function predicate(answer: number, lo: number, hi: number): MatchPredicate & { calls: number } {
  return {
    calls: 0,
    matches(i: number) {
      if (i < lo || i >= hi) throw new RangeError(`matches(${i}) outside [${lo}, ${hi})`);
      this.calls++;
      return i >= answer;
    },
  };
}

describe('first-match search', () => {
  it('binary and linear agree with the answer for every range, answer and start up to 40, binary within ceil(log2(hi - lo + 1)) comparisons', () => {
    for (let hi = 0; hi <= 40; hi++) {
      for (let lo = 0; lo <= hi; lo++) {
        for (let answer = lo; answer <= hi; answer++) {
          const b = predicate(answer, lo, hi);
          expect(binaryFirstMatch(b, lo, hi), `binary lo=${lo} hi=${hi} answer=${answer}`).toBe(answer);
          expect(b.calls).toBeLessThanOrEqual(Math.ceil(Math.log2(hi - lo + 1)));
          const l = predicate(answer, lo, hi);
          expect(linearFirstMatch(l, lo, hi), `linear lo=${lo} hi=${hi} answer=${answer}`).toBe(answer);
          expect(l.calls).toBe(Math.min(answer - lo + 1, hi - lo));
        }
      }
    }
  });
});
