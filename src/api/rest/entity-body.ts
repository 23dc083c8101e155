import { RestError } from './rest-error.js';
import type { RestParams } from './rest-params.js';

/**
 * The `name` of a create body: JSON `{"<wrapper>": {"name": "…"}}` as New Relic's examples send
 * it, or the same as form fields (`<wrapper>[name]=…`, what `curl -d` sends). The first wrapper
 * key found counts; anything else is a 422 that shows the expected body.
 */
export function nameFromCreateBody(body: unknown, form: RestParams, wrappers: readonly [string, ...string[]]): string {
  const example = `{"${wrappers[0]}": {"name": "my-app"}}`;
  const key = isObject(body) ? wrappers.find((w) => w in body) : undefined;
  let name: unknown;
  if (key !== undefined) {
    const wrapped = (body as Record<string, unknown>)[key];
    if (!isObject(wrapped)) throw RestError.unprocessable(`"${key}" must be an object, e.g. ${example}`);
    name = wrapped.name;
  } else {
    const field = wrappers.map((w) => `${w}[name]`).find((f) => form.has(f));
    if (field === undefined) throw RestError.unprocessable(`The body must be an object with a "${wrappers[0]}" member, e.g. ${example}`);
    name = form.one(field);
  }
  if (name === undefined || name === null) throw RestError.unprocessable(`A name is required, e.g. ${example}`);
  if (typeof name !== 'string') throw RestError.unprocessable(`Invalid name: expected a string, e.g. ${example}`);
  return name;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
