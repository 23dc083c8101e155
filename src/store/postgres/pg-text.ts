/**
 * PostgreSQL's text cannot hold U+0000, which DuckDB stores. Names given through the APIs are
 * refused with a RangeError (the surfaces' bad-input error); names agents report are stored with
 * U+FFFD in its place, so a pathological agent is not refused for ever.
 */
export function refuseNul(value: string, what: string): string {
  if (value.includes('\0')) throw new RangeError(`${what} cannot contain the NUL character (U+0000)`);
  return value;
}

export function withoutNul<T extends string | null>(value: T): T {
  return (value !== null && value.includes('\0') ? value.replaceAll('\0', '\uFFFD') : value) as T;
}
