/**
 * Float16 (IEEE 754 half precision, as Arrow stores it: the 16 bits in a Uint16Array) read as a
 * number — one decoder for every reader (key normalisation, filter evaluation, text output).
 *
 * Every half is exactly a double, so nothing rounds: subnormals (exponent 0) are frac * 2^-24,
 * with the sign kept (-0 stays -0); exponent 31 is ±Infinity when the fraction is 0, else NaN
 * (any payload becomes the one JS NaN). Callers that order or hash keys fold -0 and NaN themselves.
 */

/** The value of half-precision bits `h` (0..0xffff). */
export function halfToDouble(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 0x1f) return frac === 0 ? sign * Infinity : NaN;
  return sign * (1024 + frac) * 2 ** (exp - 25);
}
