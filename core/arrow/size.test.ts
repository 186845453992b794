import { Utf8View, vectorFromArray } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { dataByteSize } from './size.ts';

describe('dataByteSize', () => {
  it('counts the data buffers behind string views, not only the 16-byte views', () => {
    const long = 'x'.repeat(1000); // longer than 12 bytes: stored in a data buffer, not inline
    const d = vectorFromArray([long, long, 'short'], new Utf8View()).data[0]!;
    const buffers = d.variadicBuffers.reduce((n, b) => n + b.byteLength, 0);
    expect(buffers).toBeGreaterThanOrEqual(1000);
    expect(dataByteSize(d)).toBeGreaterThanOrEqual(3 * 16 + buffers);
  });
});
