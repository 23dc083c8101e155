/** An NRQL string literal: single quotes, with `\` and `'` escaped by a backslash. */
export function quoteNrqlString(text: string): string {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}
