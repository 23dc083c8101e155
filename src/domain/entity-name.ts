/**
 * New Relic's limit on the name of an APM, mobile or browser application, a key transaction and an
 * account: 1 to 255 characters once leading and trailing spaces are trimmed.
 */
export const MAX_ENTITY_NAME_LENGTH = 255;

/** `input` trimmed, or undefined when the trimmed name is empty or longer than MAX_ENTITY_NAME_LENGTH. */
export function entityName(input: string): string | undefined {
  const name = input.trim();
  return name === '' || name.length > MAX_ENTITY_NAME_LENGTH ? undefined : name;
}

/** The refusal of a name `entityName` rejects, naming what it names: `a key transaction name is 1 to 255 characters`. */
export function entityNameRule(subject: string): string {
  return `${subject} name is 1 to ${MAX_ENTITY_NAME_LENGTH} characters`;
}
