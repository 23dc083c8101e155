/**
 * The `.xml` face of the REST v2 JSON model, as New Relic's clients read it (rest-v2.md §1.7):
 * element names are the JSON keys, an array becomes its key's element holding one element per
 * item named by the key's singular, scalars are text, `null` members are left out.
 *
 * Output is one line after the declaration: deployment notifiers pull error text out with
 * `<error>(.*?)</error>`, a regex that does not cross line breaks.
 */

const DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n';

/** Plural keys whose items are not named by dropping an `s` (or whose list the docs name). */
const SINGULAR: Readonly<Record<string, string>> = {
  applications: 'application',
  application_hosts: 'application_host',
  application_instances: 'application_instance',
  alert_policies: 'alert_policy',
  browser_applications: 'browser_application',
  channels: 'channel',
  deployments: 'deployment',
  hosts: 'host',
  incidents: 'incident',
  instances: 'instance',
  key_transactions: 'key_transaction',
  metrics: 'metric',
  metrics_found: 'metric',
  metrics_not_found: 'metric',
  mobile_applications: 'mobile_application',
  policies: 'policy',
  recent_events: 'recent_event',
  servers: 'server',
  timeslices: 'timeslice',
  values: 'value',
  violations: 'violation',
};

/** The element name of one item of the array under `key`. */
export function singularOf(key: string): string {
  const known = SINGULAR[key];
  if (known !== undefined) return known;
  if (key.length > 3 && key.endsWith('ies')) return `${key.slice(0, -3)}y`;
  if (/(?:ss|x|ch|sh)es$/.test(key)) return key.slice(0, -2);
  if (key.length > 1 && key.endsWith('s') && !key.endsWith('ss')) return key.slice(0, -1);
  return 'item';
}

/**
 * `{ applications: [...], links: {...} }` → `<applications_response>…</applications_response>`:
 * the root is named after the first member that is not `links`.
 */
export function toXml(body: Readonly<Record<string, unknown>>): string {
  const top = Object.keys(body).find((k) => k !== 'links' && body[k] !== undefined && body[k] !== null);
  return xmlDocument(top === undefined ? 'response' : `${top}_response`, body);
}

/** A document whose root element has the given name and holds the members of `content`. */
export function xmlDocument(rootName: string, content: Readonly<Record<string, unknown>>): string {
  const out: string[] = [DECLARATION];
  writeElement(out, rootName, content, 0);
  return out.join('');
}

// Objects nest as deep as the JSON model does (a handful of levels); the bound only stops a
// cyclic value from overflowing the stack.
const MAX_DEPTH = 64;

function writeElement(out: string[], key: string, value: unknown, depth: number): void {
  if (depth > MAX_DEPTH) throw new TypeError(`XML rendering exceeds ${MAX_DEPTH} levels (a cyclic value?)`);
  const v = jsonValue(value);
  const { name, attributes } = elementName(key);
  if (v === null) {
    // Only array items get here (members that are null are left out): the empty element keeps
    // the item's position.
    out.push(`<${name}${attributes}/>`);
    return;
  }
  out.push(`<${name}${attributes}>`);
  if (Array.isArray(v)) {
    const itemName = singularOf(key);
    for (const item of v) writeElement(out, itemName, item, depth + 1);
  } else if (typeof v === 'object') {
    for (const [k, member] of Object.entries(v)) {
      if (jsonValue(member) !== null) writeElement(out, k, member, depth + 1);
    }
  } else {
    out.push(escapeText(String(v)));
  }
  out.push(`</${name}>`);
}

/**
 * The value as JSON.stringify would see it: `toJSON` applied, non-finite numbers and
 * undefined as null. Types JSON cannot carry are programming errors, refused loudly.
 */
function jsonValue(value: unknown): string | number | boolean | object | null {
  let v = value;
  if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') {
    v = (v as { toJSON(): unknown }).toJSON();
  }
  switch (typeof v) {
    case 'undefined':
      return null;
    case 'number':
      return Number.isFinite(v) ? v : null;
    case 'string':
    case 'boolean':
      return v;
    case 'object':
      return v;
    default:
      throw new TypeError(`cannot render a ${typeof v} as XML`);
  }
}

// XML 1.0 (5th ed.) name characters, without ':' — a colon would make a namespace-aware
// parser look for an undeclared prefix.
const NAME_START = 'A-Z_a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD\\u{10000}-\\u{EFFFF}';
const NAME_REST = `${NAME_START}\\-.0-9\\u00B7\\u0300-\\u036F\\u203F\\u2040`;
const VALID_NAME = new RegExp(`^[${NAME_START}][${NAME_REST}]*$`, 'u');
const INVALID_NAME_CHAR = new RegExp(`[^${NAME_REST}]`, 'gu');
const VALID_START = new RegExp(`^[${NAME_START}]`, 'u');

/**
 * Keys from our own model are valid names (`application.servers` included); a key that is not
 * (a value name starting with a digit, say) keeps its data: the element gets a repaired name and
 * carries the original key in a `key` attribute.
 */
function elementName(key: string): { name: string; attributes: string } {
  if (VALID_NAME.test(key)) return { name: key, attributes: '' };
  let name = key.replace(INVALID_NAME_CHAR, '_');
  if (!VALID_START.test(name)) name = `_${name}`;
  return { name, attributes: ` key="${escapeAttribute(key)}"` };
}

// Characters XML 1.0 cannot carry even as references, and lone surrogates; agents send
// application names and messages we do not control.
const NOT_XML_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDFFF]/gu;

const TEXT_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
  // A parser turns a raw CR (or CRLF) into LF; the reference keeps it.
  '\r': '&#13;',
};

export function escapeText(text: string): string {
  return text.replace(NOT_XML_CHAR, '\uFFFD').replace(/[&<>"'\r]/g, (c) => TEXT_ESCAPES[c] ?? c);
}

function escapeAttribute(text: string): string {
  // Attribute values have their tabs and newlines normalised to spaces unless referenced.
  return escapeText(text).replace(/\n/g, '&#10;').replace(/\t/g, '&#9;');
}
