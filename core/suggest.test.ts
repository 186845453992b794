/** closestName: a likely intent within a quarter of the name's length, case aside; else nothing. */
import { describe, expect, it } from 'vitest';
import { closestName, didYouMean } from './suggest.ts';

describe('closestName', () => {
  const known = ['hash.partitions', 'hash.mode', 'batchSize', 'pushdown', 'pushdown.rowFilter'];
  it('finds a dropped, swapped or mis-cased letter', () => {
    expect(closestName('hash.partitons', known)).toBe('hash.partitions');
    expect(closestName('hash.mdoe', known)).toBe('hash.mode');
    expect(closestName('batchsize', known)).toBe('batchSize');
  });
  it('suggests nothing far off', () => {
    expect(closestName('memory', known)).toBeNull();
    expect(didYouMean('no.such.thing', known)).toBe('');
    expect(didYouMean('pushdown.rowfiltr', known)).toBe("; did you mean 'pushdown.rowFilter'?");
  });
});
