/**
 * Entity search's LIKE: a match on words, not SQL's `%` patterns. Both sides are split into
 * tokens at white space and at `. , ; : * - _ ( )` — and at `%`, which clients carry over from
 * SQL (`'%checkout%'`) — and the pattern matches when its tokens appear one after another,
 * without gaps, among the text's tokens, ignoring case. `':aws:'` matches `-aws.` and
 * `foo aws.`; `'check out'` matches `check-out-api` but not `checkout`. A pattern with no tokens
 * (`''`, `'%'`) matches every text, as `%` does in SQL.
 */
export function likeMatches(pattern: string, text: string): boolean {
  const wanted = likeTokens(pattern);
  if (wanted.length === 0) return true;
  const have = likeTokens(text);
  for (let start = 0; start + wanted.length <= have.length; start++) {
    if (wanted.every((token, i) => have[start + i] === token)) return true;
  }
  return false;
}

const SEPARATORS = /[\s.,;:*\-_()%]+/u;

/** The lower-case tokens of `text`. */
export function likeTokens(text: string): string[] {
  return text.toLowerCase().split(SEPARATORS).filter((token) => token !== '');
}
