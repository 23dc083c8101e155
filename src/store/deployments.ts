import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { isReservedCustomAttribute } from '../domain/change-tracking-attributes.js';
import { entityGuid } from '../domain/entity-guid.js';
import { isStorableTime } from '../domain/time/time-range.js';
import type { Application } from './catalog.js';
import { Mutex } from './mutex.js';
import { attributeJson } from './attribute-json.js';

/**
 * Change tracking events, deployments among them, as New Relic stores them: one row of
 * `custom_events` with event type `ChangeTrackingEvent`, its attributes a flat JSON object named
 * as NRQL names them, so `FROM ChangeTrackingEvent WHERE category = 'Deployment' AND entity.guid =
 * '…'` reads REST-made, deployments.xml-made and graph-made deployments alike:
 *
 * `changeTrackingId` (uuid), `deploymentId` (deployments only: REST v2's integer id), `category`
 * and `type` in display form (`Deployment` / `Basic`), `version` (REST's revision), `changelog`,
 * `commit`, `deepLink`, `description`, `user`, `groupId`, `shortDescription` (made when not given),
 * `featureFlagId`, `entity.guid`, `entity.name`, `appId` and `appName` (APM applications),
 * `service.source` (who made it: `timeslice:rest-v2`, `timeslice:deployments-v0`,
 * `timeslice:graphql`), and each custom attribute as `customAttributes.<key>`. Attributes without
 * a value are left out (New Relic stores no nulls). The row's `app_id` is the application (0 for
 * other entities); `timestamp` is the event's time.
 *
 * Deployment ids come from one store-wide sequence and are never reused. The events are
 * immutable, as the graph API's are: a REST v2 DELETE records the id in `deleted_deployments`,
 * and REST listings (and chart markers) leave it out, while NRQL still finds the event.
 */

export const CHANGE_TRACKING_EVENT_TYPE = 'ChangeTrackingEvent';
export const DEPLOYMENT_CATEGORY = 'Deployment';

/** Attribute values a change tracking event carries. */
export type AttributeValue = string | number | boolean;

/** The entity an event is about. An APM application carries its id (the row's `app_id`). */
export interface ChangeTrackingEntity {
  readonly guid: string;
  readonly name: string;
  readonly appId?: number;
}

export interface ChangeTrackingEventInput {
  readonly accountId: number;
  readonly entity: ChangeTrackingEntity;
  /** Display form, e.g. `Deployment`, `Feature Flag`; a `Deployment` gets a deployment id. */
  readonly category: string;
  readonly type: string;
  /** Epoch ms. */
  readonly timestamp: number;
  readonly user?: string | null;
  readonly description?: string | null;
  readonly shortDescription?: string | null;
  readonly groupId?: string | null;
  /**
   * The category's own fields: `version`, `changelog`, `commit`, `deepLink`, `featureFlagId`. The
   * graph API and REST v2 require a deployment's version; Deployments v0 does not, so the store
   * takes a deployment without one.
   */
  readonly fields?: Readonly<Record<string, string | null | undefined>>;
  readonly customAttributes?: Readonly<Record<string, AttributeValue>>;
  /** `service.source`: which API made it. */
  readonly source: string;
}

export interface ChangeTrackingEvent {
  readonly changeTrackingId: string;
  /** REST v2's id; null for categories other than Deployment. */
  readonly deploymentId: number | null;
  readonly accountId: number;
  readonly appId: number;
  readonly timestamp: number;
  /** The stored attributes, as NRQL sees them. */
  readonly attributes: Readonly<Record<string, AttributeValue>>;
}

/** A deployment as REST v2 shows it. */
export interface Deployment {
  readonly id: number;
  readonly appId: number;
  readonly accountId: number;
  readonly changeTrackingId: string;
  readonly timestamp: number;
  readonly revision: string | null;
  readonly changelog: string | null;
  readonly description: string | null;
  readonly user: string | null;
  readonly source: string;
}

/** An input the store refuses; the message is written for the API user. */
export class ChangeTrackingInputError extends Error {}

const CATEGORY_FIELDS = ['version', 'changelog', 'commit', 'deepLink', 'featureFlagId'] as const;

/** The event's own attributes, as `createEvent` writes them (each when it has a value). */
const OWN_ATTRIBUTES = [
  'changeTrackingId', 'deploymentId', 'category', 'type', ...CATEGORY_FIELDS, 'description', 'user', 'groupId', 'shortDescription',
  'entity.guid', 'entity.name', 'appId', 'appName', 'service.source',
] as const;
/** At most this many attributes of an event are its own; the rest of an event's attribute limit is for custom ones. */
export const MAX_OWN_ATTRIBUTES = OWN_ATTRIBUTES.length;

/**
 * Where change tracking events are kept and how REST's deployment views read them: the engine's
 * side of `Deployments`.
 */
export interface ChangeTrackingRecords {
  /** Stores one event row (`attributes` as JSON text); resolves once it is committed. */
  append(accountId: number, appId: number, timestamp: number, eventType: string, attributes: string): Promise<void>;
  /** The next deployment id of the store-wide sequence; never handed out twice. */
  nextDeploymentId(): Promise<number>;
  /** One deployment of the application, unless deleted through REST (what DELETE checks under its lock). */
  find(accountId: number, appId: number, id: number): Promise<Deployment | undefined>;
  /** Ids of the application's deployments deleted through REST (REST's reads, through NRQL, leave them out). */
  deletedDeploymentIds(accountId: number, appId: number): Promise<number[]>;
  /** Records deployment `id` as deleted through REST at `at` (epoch ms). */
  recordDeleted(accountId: number, appId: number, id: number, at: number): Promise<void>;
}

export class Deployments {
  /** Deletions check and record under one lock, so a deployment is deleted once. */
  private readonly deletions = new Mutex();

  constructor(
    private readonly records: ChangeTrackingRecords,
    private readonly clock: Clock,
  ) {}

  /** The entity of an APM application, as its events name it. */
  static applicationEntity(app: Pick<Application, 'id' | 'accountId' | 'name'>): ChangeTrackingEntity {
    return { guid: entityGuid(app.accountId, 'APM', 'APPLICATION', app.id), name: app.name, appId: app.id };
  }

  /** Stores a change tracking event; resolves once it is committed. */
  async createEvent(input: ChangeTrackingEventInput): Promise<ChangeTrackingEvent> {
    const category = input.category.trim();
    const type = input.type.trim();
    if (category === '' || type === '') throw new ChangeTrackingInputError('a change tracking event needs a category and a type');
    if (!isStorableTime(input.timestamp)) {
      throw new ChangeTrackingInputError(`timestamp ${input.timestamp} is not a time`);
    }
    const fields = input.fields ?? {};
    const isDeployment = category === DEPLOYMENT_CATEGORY;
    const version = present(fields.version);
    for (const key of Object.keys(input.customAttributes ?? {})) {
      if (key.trim() === '' || isReservedCustomAttribute(key)) {
        throw new ChangeTrackingInputError(`'${key}' cannot be a custom attribute name: it is reserved`);
      }
    }

    const changeTrackingId = randomUUID();
    const deploymentId = isDeployment ? await this.records.nextDeploymentId() : null;
    const attributes: Record<string, AttributeValue> = { changeTrackingId };
    if (deploymentId !== null) attributes.deploymentId = deploymentId;
    attributes.category = category;
    attributes.type = type;
    for (const name of CATEGORY_FIELDS) {
      const value = present(fields[name]);
      if (value !== undefined) attributes[name] = value;
    }
    for (const [name, value] of [['description', input.description], ['user', input.user], ['groupId', input.groupId]] as const) {
      const text = present(value);
      if (text !== undefined) attributes[name] = text;
    }
    attributes.shortDescription = present(input.shortDescription) ?? shortDescriptionOf(category, type, input.user, version, input.entity.name);
    attributes['entity.guid'] = input.entity.guid;
    attributes['entity.name'] = input.entity.name;
    if (input.entity.appId !== undefined) {
      attributes.appId = input.entity.appId;
      attributes.appName = input.entity.name;
    }
    attributes['service.source'] = input.source;
    for (const [key, value] of Object.entries(input.customAttributes ?? {})) attributes[`customAttributes.${key}`] = value;

    const appId = input.entity.appId ?? 0;
    await this.records.append(input.accountId, appId, input.timestamp, CHANGE_TRACKING_EVENT_TYPE, attributeJson(attributes));
    return { changeTrackingId, deploymentId, accountId: input.accountId, appId, timestamp: input.timestamp, attributes };
  }

  /** One deployment of the application, unless deleted through REST (DELETE checks and records under one lock). */
  find(accountId: number, appId: number, id: number): Promise<Deployment | undefined> {
    return this.records.find(accountId, appId, id);
  }

  /** Ids of the application's deployments deleted through REST (REST's reads, through NRQL, leave them out). */
  deletedDeploymentIds(accountId: number, appId: number): Promise<number[]> {
    return this.records.deletedDeploymentIds(accountId, appId);
  }

  /**
   * REST v2's DELETE: the deployment leaves REST listings and chart markers; its event stays (graph
   * records are immutable, and NRQL still reads it). Returns the deployment as it was, or undefined
   * when there is none (or it was deleted already).
   */
  async delete(accountId: number, appId: number, id: number): Promise<Deployment | undefined> {
    return this.deletions.run(async () => {
      const deployment = await this.find(accountId, appId, id);
      if (!deployment) return undefined;
      await this.records.recordDeleted(accountId, appId, id, this.clock.now());
      return deployment;
    });
  }
}

/** A text value worth storing: empty text counts as not given. */
function present(value: string | null | undefined): string | undefined {
  return value === null || value === undefined || value === '' ? undefined : value;
}

/** New Relic's generated summary: "ci-bot deployed version 2.14.0 to billing-api". */
function shortDescriptionOf(category: string, type: string, user: string | null | undefined, version: string | undefined, entityName: string): string {
  const who = present(user);
  if (category === DEPLOYMENT_CATEGORY) {
    return `${who ? `${who} deployed` : 'Deployed'}${version === undefined ? '' : ` version ${version}`} to ${entityName}`;
  }
  return `${category} (${type}) on ${entityName}${who ? ` by ${who}` : ''}`;
}
