/**
 * The JSON text of an attribute map, as the store keeps it. `JSON.stringify` writes a lone UTF-16
 * surrogate (half of an emoji cut off by a client) as a `\udXXX` escape, which DuckDB's JSON
 * functions refuse, so one such value would make every later query over its rows fail. Lone
 * surrogates become U+FFFD, as a UTF-8 encoder would write them; everything else is kept.
 */
export function attributeJson(value: unknown): string {
  // In JSON.stringify's output every \uD800–\uDFFF escape is a lone surrogate (pairs are written as
  // characters); an escape is one preceded by an odd number of backslashes.
  return JSON.stringify(value).replace(/(\\+)u(d[89a-f][0-9a-f]{2})/gi, (match, slashes: string) =>
    slashes.length % 2 === 1 ? `${slashes.slice(0, -1)}\\ufffd` : match);
}
