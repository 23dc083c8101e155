/** Numbers from DuckDB's parallel sums may differ in their last bits from one run to the next. */
export const RELATIVE_TOLERANCE = 1e-9;

/**
 * Why `got` is not the same JSON value as `expected` (numbers within RELATIVE_TOLERANCE, everything
 * else equal, objects with the same keys), or undefined when it is.
 */
export function jsonDifference(got: unknown, expected: unknown, path = '$'): string | undefined {
  if (typeof expected === 'number' && typeof got === 'number') {
    const same = got === expected || Math.abs(got - expected) <= RELATIVE_TOLERANCE * Math.max(Math.abs(got), Math.abs(expected));
    return same ? undefined : `${path}: ${got}, expected ${expected}`;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(got) || got.length !== expected.length) return `${path}: ${short(got)}, expected ${short(expected)}`;
    for (let i = 0; i < expected.length; i++) {
      const d = jsonDifference(got[i], expected[i], `${path}[${i}]`);
      if (d) return d;
    }
    return undefined;
  }
  if (expected !== null && typeof expected === 'object') {
    if (got === null || typeof got !== 'object' || Array.isArray(got)) return `${path}: ${short(got)}, expected an object`;
    const keys = Object.keys(expected);
    if (keys.join() !== Object.keys(got).join()) return `${path}: keys ${Object.keys(got).join(', ')}, expected ${keys.join(', ')}`;
    for (const k of keys) {
      const d = jsonDifference((got as Record<string, unknown>)[k], (expected as Record<string, unknown>)[k], `${path}.${k}`);
      if (d) return d;
    }
    return undefined;
  }
  return got === expected ? undefined : `${path}: ${short(got)}, expected ${short(expected)}`;
}

const short = (v: unknown) => JSON.stringify(v)?.slice(0, 200) ?? String(v);
