import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seededRandom } from '../../../test/helpers/seeded-random.js';
import { threeSignificant } from './number-format.js';

/**
 * An independent oracle: the double's exact value as a BigInt fraction, rounded to three
 * significant decimal digits half away from zero by integer arithmetic.
 */
function exactThreeSignificant(x: number): number {
  if (x === 0) return 0;
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const bits = view.getBigUint64(0);
  const biasedExponent = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  const mantissa = biasedExponent === 0 ? fraction : fraction | (1n << 52n);
  const exponent = (biasedExponent === 0 ? 1 : biasedExponent) - 1075;
  // |x| = num / den exactly.
  let num = exponent >= 0 ? mantissa << BigInt(exponent) : mantissa;
  let den = exponent >= 0 ? 1n : 1n << BigInt(-exponent);
  // Scale by powers of ten until 100 <= num/den < 1000; k counts the decimal exponent.
  let k = 0;
  while (num >= 1000n * den) { den *= 10n; k++; }
  while (num < 100n * den) { num *= 10n; k--; }
  let digits = num / den;
  if (2n * (num - digits * den) >= den) digits++;
  return Number(`${x < 0 ? '-' : ''}${digits}e${k}`);
}


function significantDigits(json: string): string {
  return json.replace(/^-/, '').replace(/e.*$/, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
}

describe('threeSignificant', () => {
  it('rounds the published examples', () => {
    const cases: [number, number][] = [
      [99770, 99800],
      [0.36412, 0.364],
      [0.0298123, 0.0298],
      [1840.4, 1840],
      [65.94, 65.9],
      [15712, 15700],
      [0.96, 0.96],
      [1, 1],
      [0, 0],
      [-0, 0],
      [-99770, -99800],
      [-0.0298123, -0.0298],
      [1e-9, 1e-9],
      [1.23456e-9, 1.23e-9],
      [1.23456e12, 1.23e12],
      [9.996, 10],
      [999.6, 1000],
      [0.30000000000000004, 0.3],
      [1.005, 1],
      [5e-324, 5e-324],
      [Number.MAX_VALUE, 1.8e308],
    ];
    for (const [input, expected] of cases) assert.equal(threeSignificant(input), expected, String(input));
    assert.equal(Object.is(threeSignificant(-0), 0), true);
    assert.equal(JSON.stringify(threeSignificant(0.1 + 0.2)), '0.3');
  });

  it('returns non-finite input unchanged', () => {
    assert.equal(threeSignificant(Number.POSITIVE_INFINITY), Number.POSITIVE_INFINITY);
    assert.equal(Number.isNaN(threeSignificant(Number.NaN)), true);
  });

  it('agrees with exact decimal rounding and prints at most three significant digits (property)', () => {
    const random = seededRandom(0x5eed);
    const view = new DataView(new ArrayBuffer(8));
    const samples: number[] = [];
    for (let i = 0; i < 20_000; i++) {
      // Every magnitude, by exponent …
      samples.push((random() - 0.5) * 10 ** Math.floor(random() * 40 - 20));
      // … arbitrary bit patterns …
      view.setUint32(0, Math.floor(random() * 2 ** 32));
      view.setUint32(4, Math.floor(random() * 2 ** 32));
      const bits = view.getFloat64(0);
      if (Number.isFinite(bits)) samples.push(bits);
      // … and decimal ties such as 4.345e7, where only the exact binary value decides.
      const tie = Number(`${1 + Math.floor(random() * 9)}.${Math.floor(random() * 10)}${Math.floor(random() * 10)}5e${Math.floor(random() * 40 - 20)}`);
      samples.push(tie, -tie);
    }
    for (const x of samples) {
      const rounded = threeSignificant(x);
      assert.equal(rounded, exactThreeSignificant(x), `x = ${x}`);
      assert.ok(significantDigits(JSON.stringify(rounded)).length <= 3, `${x} → ${JSON.stringify(rounded)}`);
    }
  });
});
