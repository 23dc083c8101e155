import { isReservedCustomAttribute } from '../../domain/change-tracking-attributes.js';
import { MAX_ATTRIBUTES, MAX_ATTRIBUTE_NAME_LENGTH, MAX_VALUE_LENGTH } from '../../domain/event-limits.js';
import { DEPLOYMENT_CATEGORY, MAX_OWN_ATTRIBUTES, type AttributeValue, type ChangeTrackingEventInput } from '../../store/deployments.js';
import { GraphError } from './graph-errors.js';

/**
 * The rules of NerdGraph's change tracking mutations (`changeTrackingCreateEvent`,
 * `changeTrackingCreateDeployment`) as plain functions over their input: which category and type
 * pairs are standard and how they are spelt, what each category requires, custom attributes,
 * the time window and the length of text. The resolvers find the entity and store the event;
 * what is stored is `store/deployments.ts`'s `ChangeTrackingEvent`, read back by `eventView` and
 * `deploymentView`. Every refusal is an INVALID_INPUT `GraphError` naming the field.
 */

/** `service.source` of what the graph API writes, beside REST v2's and Deployments v0's (`api/rest/api-usage.ts`). */
export const GRAPH_SERVICE_SOURCE = 'timeslice:graphql';

export type ValidationFlag = 'ALLOW_CUSTOM_CATEGORY_OR_TYPE' | 'FAIL_ON_FIELD_LENGTH' | 'FAIL_ON_REST_API_FAILURES';

/**
 * The standard pairs: every `ChangeTrackingCategoryType` value but the custom one, spelt
 * `CATEGORY__TYPE` (the docs' table lists the same pairs, except Deployment's `Other`, which the
 * enum and `ChangeTrackingDeploymentType` have).
 */
export const STANDARD_CATEGORY_TYPES = [
  'BUSINESS_EVENT__CONVENTION', 'BUSINESS_EVENT__MARKETING_CAMPAIGN', 'BUSINESS_EVENT__OTHER',
  'DEPLOYMENT_LIFECYCLE__ARTIFACT_COPY', 'DEPLOYMENT_LIFECYCLE__ARTIFACT_DELETION', 'DEPLOYMENT_LIFECYCLE__ARTIFACT_DEPLOYMENT',
  'DEPLOYMENT_LIFECYCLE__ARTIFACT_MOVE', 'DEPLOYMENT_LIFECYCLE__BUILD_DELETION', 'DEPLOYMENT_LIFECYCLE__BUILD_PROMOTION',
  'DEPLOYMENT_LIFECYCLE__BUILD_UPLOAD', 'DEPLOYMENT_LIFECYCLE__IMAGE_DELETION', 'DEPLOYMENT_LIFECYCLE__IMAGE_PROMOTION',
  'DEPLOYMENT_LIFECYCLE__IMAGE_PUSH', 'DEPLOYMENT_LIFECYCLE__RELEASE_BUNDLE_CREATION', 'DEPLOYMENT_LIFECYCLE__RELEASE_BUNDLE_DELETION',
  'DEPLOYMENT_LIFECYCLE__RELEASE_BUNDLE_SIGN',
  'DEPLOYMENT__BASIC', 'DEPLOYMENT__BLUE_GREEN', 'DEPLOYMENT__CANARY', 'DEPLOYMENT__OTHER', 'DEPLOYMENT__ROLLING', 'DEPLOYMENT__SHADOW',
  'FEATURE_FLAG__BASIC',
  'OPERATIONAL__CRASH', 'OPERATIONAL__OTHER', 'OPERATIONAL__SCHEDULED_MAINTENANCE_PERIOD', 'OPERATIONAL__SERVER_REBOOT',
] as const;

/** What a pair outside the standard ones reports as its `categoryAndType`. */
export const CUSTOM_CATEGORY_TYPE = 'CUSTOMER_DEFINED__CUSTOM';

export const FEATURE_FLAG_CATEGORY = 'Feature Flag';

/** `ChangeTrackingDeploymentType`: the types of `changeTrackingCreateDeployment`, Deployment's standard types. */
export const DEPLOYMENT_TYPES = ['BASIC', 'BLUE_GREEN', 'CANARY', 'OTHER', 'ROLLING', 'SHADOW'] as const;
export type DeploymentType = (typeof DEPLOYMENT_TYPES)[number];

/** Times given must be within a day of now, either way (New Relic: "+/- 24 hours of the current time"). */
export const TIMESTAMP_WINDOW_MS = 24 * 60 * 60_000;

/**
 * Text is kept up to New Relic's limit on an event attribute's string value (the Event API's
 * 4096 characters); longer text is cut there, or refused with FAIL_ON_FIELD_LENGTH. Custom
 * attribute names are refused past the attribute name limit (255) whatever the flags: a cut name
 * is another name.
 */
export const MAX_TEXT_LENGTH = MAX_VALUE_LENGTH;

/** Custom attributes an event may carry: with its own, at most the Event API's 255 attributes. */
export const MAX_CUSTOM_ATTRIBUTES = MAX_ATTRIBUTES - MAX_OWN_ATTRIBUTES;

/** `BLUE_GREEN` → `Blue Green`: how categories and types are shown and stored. */
function displayOf(enumPart: string): string {
  return enumPart.split('_').map((w) => w.charAt(0) + w.slice(1).toLowerCase()).join(' ');
}

/** How input is compared with the standard names: case ignored, `_` a space, runs of spaces one. */
function comparable(text: string): string {
  return text.trim().replace(/_/g, ' ').replace(/\s+/g, ' ').toLowerCase();
}

/** Standard categories by comparable name: their display form and their types' (comparable → display, enum value). */
const STANDARD: ReadonlyMap<string, { display: string; types: ReadonlyMap<string, { display: string; value: string }> }> = (() => {
  const categories = new Map<string, { display: string; types: Map<string, { display: string; value: string }> }>();
  for (const value of STANDARD_CATEGORY_TYPES) {
    const [category, type] = value.split('__') as [string, string];
    const key = comparable(category);
    let entry = categories.get(key);
    if (!entry) categories.set(key, (entry = { display: displayOf(category), types: new Map() }));
    entry.types.set(comparable(type), { display: displayOf(type), value });
  }
  return categories;
})();

export interface ChangeKind {
  /** Display form (`Deployment`, `Feature Flag`), or a custom category as given. */
  readonly category: string;
  readonly type: string;
  readonly categoryAndType: string;
}

/**
 * The category and type an event is stored under. A standard pair is found whatever its spelling
 * (`deployment`/`basic`, `DEPLOYMENT`/`BLUE_GREEN`) and stored in display form. Anything else
 * needs ALLOW_CUSTOM_CATEGORY_OR_TYPE and is CUSTOMER_DEFINED__CUSTOM: a custom category or type
 * keeps its casing, while a standard category with a custom type keeps the category's display
 * form, so that a `Deployment` of a custom type still is a deployment (version required, listed
 * by REST and `deploymentSearch`).
 */
export function changeKind(category: string, type: string, allowCustom: boolean): ChangeKind {
  const givenCategory = category.trim();
  const givenType = type.trim();
  if (givenCategory === '') throw GraphError.invalidInput('categoryAndTypeData.kind.category must not be empty');
  if (givenType === '') throw GraphError.invalidInput('categoryAndTypeData.kind.type must not be empty');
  const standard = STANDARD.get(comparable(givenCategory));
  const standardType = standard?.types.get(comparable(givenType));
  if (standard && standardType) return { category: standard.display, type: standardType.display, categoryAndType: standardType.value };
  if (!allowCustom) {
    const known = standard
      ? `the types of ${standard.display} are ${[...standard.types.values()].map((t) => t.display).join(', ')}`
      : `the categories are ${[...STANDARD.values()].map((c) => c.display).join(', ')}`;
    throw GraphError.invalidInput(
      `'${givenCategory}' / '${givenType}' is not a standard category and type (${known}); ` +
        'send dataHandlingRules: {validationFlags: [ALLOW_CUSTOM_CATEGORY_OR_TYPE]} to use your own',
    );
  }
  return { category: standard?.display ?? givenCategory, type: givenType, categoryAndType: CUSTOM_CATEGORY_TYPE };
}

/** `__typename` of an event's view, by its category. */
export function eventTypename(category: string): 'ChangeTrackingDeploymentEvent' | 'ChangeTrackingFeatureFlagEvent' | 'ChangeTrackingGenericEvent' {
  if (category === DEPLOYMENT_CATEGORY) return 'ChangeTrackingDeploymentEvent';
  if (category === FEATURE_FLAG_CATEGORY) return 'ChangeTrackingFeatureFlagEvent';
  return 'ChangeTrackingGenericEvent';
}

/** A deployment type's stored form: `BLUE_GREEN` → `Blue Green`. */
export function deploymentTypeName(type: DeploymentType): string {
  return displayOf(type);
}

/** The `ChangeTrackingDeploymentType` of a stored type; a custom type is OTHER ("other types of deployment"). */
export function deploymentTypeOf(stored: string | undefined): DeploymentType {
  const key = comparable(stored ?? '');
  return DEPLOYMENT_TYPES.find((t) => comparable(t) === key) ?? 'OTHER';
}

/**
 * Text fields of one request, each kept to `MAX_TEXT_LENGTH` characters (code points): cut there,
 * with a note in `messages`, or refused when the request asked FAIL_ON_FIELD_LENGTH.
 */
export class FieldLengths {
  readonly messages: string[] = [];

  constructor(private readonly failOnLength: boolean) {}

  /** The value to store: undefined for none or empty text (New Relic stores no empty attributes). */
  text(field: string, value: string | null | undefined): string | undefined {
    if (value === null || value === undefined || value === '') return undefined;
    // UTF-16 units are never fewer than code points: only a long value needs counting.
    if (value.length <= MAX_TEXT_LENGTH) return value;
    const points = [...value];
    if (points.length <= MAX_TEXT_LENGTH) return value;
    if (this.failOnLength) {
      throw GraphError.invalidInput(`${field} is ${points.length} characters long; at most ${MAX_TEXT_LENGTH} are allowed (FAIL_ON_FIELD_LENGTH)`);
    }
    this.messages.push(`${field} was ${points.length} characters long and was truncated to ${MAX_TEXT_LENGTH}`);
    return points.slice(0, MAX_TEXT_LENGTH).join('');
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Custom attributes as given (an object literal or a variables object): string, number or boolean
 * values under names that are not reserved. Undefined when none are given.
 */
export function customAttributes(value: unknown, lengths: FieldLengths): Record<string, AttributeValue> | undefined {
  if (value === null || value === undefined) return undefined;
  if (!isPlainObject(value)) throw GraphError.invalidInput('customAttributes must be an object of string, number or boolean values, e.g. {region: "eu-west-1", pods: 12}');
  const entries = Object.entries(value);
  if (entries.length > MAX_CUSTOM_ATTRIBUTES) {
    throw GraphError.invalidInput(`customAttributes has ${entries.length} attributes; an event takes at most ${MAX_CUSTOM_ATTRIBUTES}`);
  }
  const out: Record<string, AttributeValue> = {};
  for (const [key, v] of entries) {
    if (key.trim() === '') throw GraphError.invalidInput('customAttributes: an attribute name must not be empty');
    if (key.length > MAX_ATTRIBUTE_NAME_LENGTH) throw GraphError.invalidInput(`customAttributes: the name '${key.slice(0, 40)}…' is longer than ${MAX_ATTRIBUTE_NAME_LENGTH} characters`);
    if (isReservedCustomAttribute(key)) {
      throw GraphError.invalidInput(`customAttributes: '${key}' is reserved (an attribute of the event itself or an NRQL keyword); choose another name`);
    }
    if (typeof v === 'string') {
      const text = lengths.text(`customAttributes.${key}`, v);
      if (text !== undefined) out[key] = text;
    } else if (typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) {
      out[key] = v;
    } else {
      throw GraphError.invalidInput(`customAttributes.${key} must be a string, a number or a boolean, not ${v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v}`);
    }
  }
  return out;
}

/** The event's time: now when not given, else the time given if it is within a day of now. */
export function eventTimestamp(given: number | null | undefined, nowMs: number): number {
  if (given === null || given === undefined) return nowMs;
  if (Math.abs(given - nowMs) > TIMESTAMP_WINDOW_MS) {
    const iso = (ms: number) => (Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : String(ms));
    throw GraphError.invalidInput(
      `timestamp ${given} (${iso(given)}) is more than 24 hours from now (${iso(nowMs)}): change tracking takes times within ±24 h of the request`,
    );
  }
  return given;
}

/** `ChangeTrackingCreateEventInput`, as GraphQL hands it over (absent members undefined, explicit ones possibly null). */
export interface CreateEventInput {
  readonly categoryAndTypeData?: {
    readonly kind?: { readonly category: string; readonly type: string } | null;
    readonly categoryFields?: {
      readonly deployment?: { readonly version: string; readonly changelog?: string | null; readonly commit?: string | null; readonly deepLink?: string | null } | null;
      readonly featureFlag?: { readonly featureFlagId: string } | null;
    } | null;
  } | null;
  readonly customAttributes?: unknown;
  readonly description?: string | null;
  readonly entitySearch: { readonly query: string };
  readonly groupId?: string | null;
  readonly shortDescription?: string | null;
  readonly timestamp?: number | null;
  readonly user?: string | null;
}

/** What `checkedEvent` makes of the input: the store's input but for the entity and account, which the resolver finds. */
export interface CheckedEvent {
  readonly kind: ChangeKind;
  readonly store: Omit<ChangeTrackingEventInput, 'accountId' | 'entity'>;
  /** Notes for `messages`: text that was cut. */
  readonly messages: readonly string[];
}

/**
 * Checks everything of a `changeTrackingCreateEvent` input but its entity search: the kind, the
 * category's own fields (a Deployment needs `categoryFields.deployment.version`, a Feature Flag
 * `categoryFields.featureFlag.featureFlagId`; another category's fields are refused), custom
 * attributes, the time and the length of every text.
 */
export function checkedEvent(input: CreateEventInput, flags: ReadonlySet<ValidationFlag>, nowMs: number): CheckedEvent {
  const data = input.categoryAndTypeData;
  if (!data?.kind) throw GraphError.invalidInput('categoryAndTypeData.kind is required: the category and type of the change, e.g. {category: "Deployment", type: "Basic"}');
  const kind = changeKind(data.kind.category, data.kind.type, flags.has('ALLOW_CUSTOM_CATEGORY_OR_TYPE'));
  const lengths = new FieldLengths(flags.has('FAIL_ON_FIELD_LENGTH'));
  const fields: Record<string, string> = {};
  const put = (name: string, field: string, value: string | null | undefined) => {
    const text = lengths.text(field, value);
    if (text !== undefined) fields[name] = text;
  };
  const deployment = data.categoryFields?.deployment;
  const featureFlag = data.categoryFields?.featureFlag;
  if (kind.category === DEPLOYMENT_CATEGORY) {
    if (!deployment || deployment.version.trim() === '') {
      throw GraphError.invalidInput('A Deployment needs categoryAndTypeData.categoryFields.deployment.version: the version deployed');
    }
    const at = 'categoryAndTypeData.categoryFields.deployment';
    put('version', `${at}.version`, deployment.version);
    put('changelog', `${at}.changelog`, deployment.changelog);
    put('commit', `${at}.commit`, deployment.commit);
    put('deepLink', `${at}.deepLink`, deployment.deepLink);
  } else if (deployment) {
    throw GraphError.invalidInput(`categoryAndTypeData.categoryFields.deployment is for category Deployment; this event's category is ${kind.category}`);
  }
  if (kind.category === FEATURE_FLAG_CATEGORY) {
    if (!featureFlag || featureFlag.featureFlagId.trim() === '') {
      throw GraphError.invalidInput('A Feature Flag needs categoryAndTypeData.categoryFields.featureFlag.featureFlagId: the flag changed');
    }
    put('featureFlagId', 'categoryAndTypeData.categoryFields.featureFlag.featureFlagId', featureFlag.featureFlagId);
  } else if (featureFlag) {
    throw GraphError.invalidInput(`categoryAndTypeData.categoryFields.featureFlag is for category Feature Flag; this event's category is ${kind.category}`);
  }
  const custom = customAttributes(input.customAttributes, lengths);
  const store: CheckedEvent['store'] = {
    category: kind.category,
    type: kind.type,
    timestamp: eventTimestamp(input.timestamp, nowMs),
    user: lengths.text('user', input.user) ?? null,
    description: lengths.text('description', input.description) ?? null,
    shortDescription: lengths.text('shortDescription', input.shortDescription) ?? null,
    groupId: lengths.text('groupId', input.groupId) ?? null,
    fields,
    ...(custom ? { customAttributes: custom } : {}),
    source: GRAPH_SERVICE_SOURCE,
  };
  return { kind, store, messages: lengths.messages };
}

/** `ChangeTrackingDeploymentInput`, as GraphQL hands it over. */
export interface CreateDeploymentInput {
  readonly changelog?: string | null;
  readonly commit?: string | null;
  readonly customAttributes?: unknown;
  readonly deepLink?: string | null;
  readonly deploymentType?: DeploymentType | null;
  readonly description?: string | null;
  readonly entityGuid: string;
  readonly groupId?: string | null;
  readonly timestamp?: number | null;
  readonly user?: string | null;
  readonly version: string;
}

/**
 * A `changeTrackingCreateDeployment` input as a change tracking event: category Deployment, its
 * type the deployment type's display form (Basic when none is given), custom attributes under the
 * rules of `changeTrackingCreateEvent`'s.
 */
export function checkedDeployment(input: CreateDeploymentInput, flags: ReadonlySet<ValidationFlag>, nowMs: number): Omit<ChangeTrackingEventInput, 'accountId' | 'entity'> {
  if (input.version.trim() === '') throw GraphError.invalidInput('deployment.version must not be empty: the version deployed');
  const lengths = new FieldLengths(flags.has('FAIL_ON_FIELD_LENGTH'));
  const fields: Record<string, string> = {};
  for (const name of ['version', 'changelog', 'commit', 'deepLink'] as const) {
    const text = lengths.text(`deployment.${name}`, input[name]);
    if (text !== undefined) fields[name] = text;
  }
  const custom = customAttributes(input.customAttributes, lengths);
  return {
    category: DEPLOYMENT_CATEGORY,
    type: deploymentTypeName(input.deploymentType ?? 'BASIC'),
    timestamp: eventTimestamp(input.timestamp, nowMs),
    user: lengths.text('deployment.user', input.user) ?? null,
    description: lengths.text('deployment.description', input.description) ?? null,
    groupId: lengths.text('deployment.groupId', input.groupId) ?? null,
    fields,
    ...(custom ? { customAttributes: custom } : {}),
    source: GRAPH_SERVICE_SOURCE,
  };
}

type Attributes = Readonly<Record<string, unknown>>;

function textOf(attributes: Attributes, name: string): string | null {
  const v = attributes[name];
  return v === undefined || v === null ? null : String(v);
}

const CUSTOM_PREFIX = 'customAttributes.';

/** The custom attributes of a stored event, under their own names; null when it has none. */
export function storedCustomAttributes(attributes: Attributes): Record<string, unknown> | null {
  const entries = Object.entries(attributes).filter(([k]) => k.startsWith(CUSTOM_PREFIX)).map(([k, v]) => [k.slice(CUSTOM_PREFIX.length), v]);
  return entries.length === 0 ? null : Object.fromEntries(entries);
}

/**
 * The `ChangeTrackingEvent` view of a stored event (`__typename` by its category): every field
 * read from the attributes stored; the entity is the one the event is about, as an outline.
 */
export function eventView<E>(stored: { readonly timestamp: number; readonly attributes: Attributes }, categoryAndType: string, entity: E): Record<string, unknown> {
  const a = stored.attributes;
  const category = String(a.category);
  const typename = eventTypename(category);
  return {
    __typename: typename,
    category,
    categoryAndType,
    changeTrackingId: String(a.changeTrackingId),
    customAttributes: storedCustomAttributes(a),
    description: textOf(a, 'description'),
    entity,
    groupId: textOf(a, 'groupId'),
    shortDescription: textOf(a, 'shortDescription'),
    timestamp: stored.timestamp,
    type: String(a.type),
    user: textOf(a, 'user'),
    ...(typename === 'ChangeTrackingDeploymentEvent'
      ? { version: textOf(a, 'version') ?? '', changelog: textOf(a, 'changelog'), commit: textOf(a, 'commit'), deepLink: textOf(a, 'deepLink') }
      : {}),
    ...(typename === 'ChangeTrackingFeatureFlagEvent' ? { featureFlagId: textOf(a, 'featureFlagId') ?? '' } : {}),
  };
}

/**
 * NerdGraph's `ChangeTrackingDeployment` of a stored Deployment event. `deploymentId` is the
 * event's `changeTrackingId`: NerdGraph's deployment ids are UUIDs (the `deploymentId` attribute
 * NRQL shows is REST v2's integer id of the same record). A deployment stored without a version
 * (Deployments v0 takes those) shows the empty version, the field being non-null. Custom
 * attributes read back as `eventView`'s do.
 */
export function deploymentView(stored: { readonly timestamp: number; readonly attributes: Attributes }): Record<string, unknown> {
  const a = stored.attributes;
  return {
    changelog: textOf(a, 'changelog'),
    commit: textOf(a, 'commit'),
    customAttributes: storedCustomAttributes(a),
    deepLink: textOf(a, 'deepLink'),
    deploymentId: String(a.changeTrackingId),
    deploymentType: deploymentTypeOf(textOf(a, 'type') ?? undefined),
    description: textOf(a, 'description'),
    entityGuid: String(a['entity.guid']),
    groupId: textOf(a, 'groupId'),
    timestamp: stored.timestamp,
    user: textOf(a, 'user'),
    version: textOf(a, 'version') ?? '',
  };
}
