import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  changeKind, checkedDeployment, checkedEvent, customAttributes, deploymentTypeName, deploymentTypeOf, deploymentView, eventTimestamp,
  eventTypename, eventView, FieldLengths, MAX_CUSTOM_ATTRIBUTES, STANDARD_CATEGORY_TYPES, type ValidationFlag,
} from '../../src/api/graphql/change-tracking.js';
import { GraphError } from '../../src/api/graphql/graph-errors.js';

/* The change tracking rules as plain functions: no server, no store. */

const NOW = Date.UTC(2025, 5, 2, 12, 0, 0);
const DAY = 24 * 60 * 60_000;

/** Asserts `run` throws an INVALID_INPUT GraphError with exactly `message`. */
function refuses(run: () => unknown, message: string): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof GraphError, `expected a GraphError, got ${String(error)}`);
    assert.equal(error.errorClass, 'INVALID_INPUT');
    assert.equal(error.message, message);
    return true;
  });
}

const flags = (...names: ValidationFlag[]) => new Set<ValidationFlag>(names);

describe('changeKind', () => {
  it('finds the standard pairs whatever the case, with _ as a space, and shows them in display form', () => {
    assert.deepEqual(changeKind('deployment', 'basic', false), { category: 'Deployment', type: 'Basic', categoryAndType: 'DEPLOYMENT__BASIC' });
    assert.deepEqual(changeKind('BUSINESS_EVENT', 'MARKETING_CAMPAIGN', false), { category: 'Business Event', type: 'Marketing Campaign', categoryAndType: 'BUSINESS_EVENT__MARKETING_CAMPAIGN' });
    assert.deepEqual(changeKind(' Deployment lifecycle ', 'release_bundle   SIGN', false),
      { category: 'Deployment Lifecycle', type: 'Release Bundle Sign', categoryAndType: 'DEPLOYMENT_LIFECYCLE__RELEASE_BUNDLE_SIGN' });
    assert.deepEqual(changeKind('FEATURE_FLAG', 'BASIC', false), { category: 'Feature Flag', type: 'Basic', categoryAndType: 'FEATURE_FLAG__BASIC' });
    assert.deepEqual(changeKind('Operational', 'Scheduled Maintenance Period', false),
      { category: 'Operational', type: 'Scheduled Maintenance Period', categoryAndType: 'OPERATIONAL__SCHEDULED_MAINTENANCE_PERIOD' });
    assert.deepEqual(changeKind('deployment', 'blue green', false), { category: 'Deployment', type: 'Blue Green', categoryAndType: 'DEPLOYMENT__BLUE_GREEN' });
  });

  it('has 27 standard pairs: 3 business events, 13 lifecycle steps, 6 deployments, 1 feature flag, 4 operational', () => {
    const perCategory = new Map<string, number>();
    for (const value of STANDARD_CATEGORY_TYPES) {
      const category = value.split('__')[0]!;
      perCategory.set(category, (perCategory.get(category) ?? 0) + 1);
    }
    assert.deepEqual(Object.fromEntries(perCategory), { BUSINESS_EVENT: 3, DEPLOYMENT_LIFECYCLE: 13, DEPLOYMENT: 6, FEATURE_FLAG: 1, OPERATIONAL: 4 });
  });

  it('refuses other pairs without ALLOW_CUSTOM_CATEGORY_OR_TYPE, saying what the standard ones are', () => {
    refuses(() => changeKind('Deployment', 'Rainbow', false),
      "'Deployment' / 'Rainbow' is not a standard category and type (the types of Deployment are Basic, Blue Green, Canary, Other, Rolling, Shadow); " +
        'send dataHandlingRules: {validationFlags: [ALLOW_CUSTOM_CATEGORY_OR_TYPE]} to use your own');
    refuses(() => changeKind('External Event', 'Outage', false),
      "'External Event' / 'Outage' is not a standard category and type (the categories are Business Event, Deployment Lifecycle, Deployment, Feature Flag, Operational); " +
        'send dataHandlingRules: {validationFlags: [ALLOW_CUSTOM_CATEGORY_OR_TYPE]} to use your own');
    refuses(() => changeKind('  ', 'Basic', true), 'categoryAndTypeData.kind.category must not be empty');
    refuses(() => changeKind('Deployment', '', true), 'categoryAndTypeData.kind.type must not be empty');
  });

  it('with the flag, custom pairs keep their casing and are CUSTOMER_DEFINED__CUSTOM; a standard category keeps its display form', () => {
    assert.deepEqual(changeKind('External Event', 'Cloud Provider Outage', true), { category: 'External Event', type: 'Cloud Provider Outage', categoryAndType: 'CUSTOMER_DEFINED__CUSTOM' });
    assert.deepEqual(changeKind('deployment', 'Rainbow', true), { category: 'Deployment', type: 'Rainbow', categoryAndType: 'CUSTOMER_DEFINED__CUSTOM' });
    assert.deepEqual(changeKind('deployment', 'canary', true), { category: 'Deployment', type: 'Canary', categoryAndType: 'DEPLOYMENT__CANARY' });
  });
});

describe('event and deployment types', () => {
  it('__typename by category', () => {
    assert.equal(eventTypename('Deployment'), 'ChangeTrackingDeploymentEvent');
    assert.equal(eventTypename('Feature Flag'), 'ChangeTrackingFeatureFlagEvent');
    assert.equal(eventTypename('Business Event'), 'ChangeTrackingGenericEvent');
    assert.equal(eventTypename('deployment'), 'ChangeTrackingGenericEvent', 'only the stored display form is a deployment');
  });

  it('deployment types both ways; a custom one is OTHER', () => {
    assert.deepEqual(['BASIC', 'BLUE_GREEN', 'SHADOW'].map((t) => deploymentTypeName(t as 'BASIC')), ['Basic', 'Blue Green', 'Shadow']);
    assert.deepEqual(['Basic', 'Blue Green', 'rolling', 'Rainbow', undefined].map(deploymentTypeOf), ['BASIC', 'BLUE_GREEN', 'ROLLING', 'OTHER', 'OTHER']);
  });
});

describe('FieldLengths', () => {
  it('keeps text up to 4096 characters; cuts longer text with a note, or refuses it with FAIL_ON_FIELD_LENGTH', () => {
    const lengths = new FieldLengths(false);
    assert.equal(lengths.text('description', 'a'.repeat(4096)), 'a'.repeat(4096));
    assert.equal(lengths.text('description', 'b'.repeat(4100)), 'b'.repeat(4096));
    assert.equal(lengths.text('user', ''), undefined);
    assert.equal(lengths.text('user', null), undefined);
    assert.deepEqual(lengths.messages, ['description was 4100 characters long and was truncated to 4096']);
    refuses(() => new FieldLengths(true).text('description', 'c'.repeat(4097)), 'description is 4097 characters long; at most 4096 are allowed (FAIL_ON_FIELD_LENGTH)');
  });

  it('counts characters, not UTF-16 units: 4096 emoji are kept, 4097 cut at a character boundary', () => {
    const lengths = new FieldLengths(false);
    const emoji = '🚀';
    assert.equal(lengths.text('user', emoji.repeat(4096)), emoji.repeat(4096));
    const cut = lengths.text('user', emoji.repeat(4097))!;
    assert.equal(cut, emoji.repeat(4096));
    assert.equal(cut.length, 8192);
  });
});

describe('customAttributes', () => {
  it('takes string, number and boolean values', () => {
    assert.deepEqual(customAttributes({ region: 'eu-west-1', pods: 12, ratio: 0.5, canary: false }, new FieldLengths(false)), { region: 'eu-west-1', pods: 12, ratio: 0.5, canary: false });
    assert.equal(customAttributes(undefined, new FieldLengths(false)), undefined);
    assert.equal(customAttributes(null, new FieldLengths(false)), undefined);
  });

  it('refuses reserved names (any case), NRQL keywords, other values, non-objects and too many attributes', () => {
    const lengths = new FieldLengths(false);
    for (const key of ['Timestamp', 'select', 'entity.guid', 'appID', 'version', 'service.source']) {
      refuses(() => customAttributes({ [key]: 'x' }, lengths), `customAttributes: '${key}' is reserved (an attribute of the event itself or an NRQL keyword); choose another name`);
    }
    refuses(() => customAttributes({ a: null }, lengths), 'customAttributes.a must be a string, a number or a boolean, not null');
    refuses(() => customAttributes({ a: { b: 1 } }, lengths), 'customAttributes.a must be a string, a number or a boolean, not object');
    refuses(() => customAttributes({ a: [1] }, lengths), 'customAttributes.a must be a string, a number or a boolean, not a list');
    refuses(() => customAttributes({ '': 1 }, lengths), 'customAttributes: an attribute name must not be empty');
    refuses(() => customAttributes('region=eu', lengths), 'customAttributes must be an object of string, number or boolean values, e.g. {region: "eu-west-1", pods: 12}');
    refuses(() => customAttributes([1, 2], lengths), 'customAttributes must be an object of string, number or boolean values, e.g. {region: "eu-west-1", pods: 12}');
    const many = Object.fromEntries(Array.from({ length: MAX_CUSTOM_ATTRIBUTES + 1 }, (_, i) => [`k${i}`, i]));
    assert.equal(MAX_CUSTOM_ATTRIBUTES, 237);
    refuses(() => customAttributes(many, lengths), 'customAttributes has 238 attributes; an event takes at most 237');
  });
});

describe('eventTimestamp', () => {
  it('is now when not given; a given time within 24 hours either way is kept; beyond is refused', () => {
    assert.equal(eventTimestamp(undefined, NOW), NOW);
    assert.equal(eventTimestamp(null, NOW), NOW);
    assert.equal(eventTimestamp(NOW - DAY, NOW), NOW - DAY);
    assert.equal(eventTimestamp(NOW + DAY, NOW), NOW + DAY);
    refuses(() => eventTimestamp(NOW - DAY - 1, NOW),
      `timestamp ${NOW - DAY - 1} (2025-06-01T11:59:59.999Z) is more than 24 hours from now (2025-06-02T12:00:00.000Z): change tracking takes times within ±24 h of the request`);
    refuses(() => eventTimestamp(0, NOW),
      'timestamp 0 (1970-01-01T00:00:00.000Z) is more than 24 hours from now (2025-06-02T12:00:00.000Z): change tracking takes times within ±24 h of the request');
  });
});

describe('checkedEvent', () => {
  it('a deployment: its fields, the texts, custom attributes and the graph\'s service.source', () => {
    const checked = checkedEvent({
      categoryAndTypeData: { kind: { category: 'deployment', type: 'basic' }, categoryFields: { deployment: { version: '2.14.0', commit: '9f1c2ab', changelog: null } } },
      entitySearch: { query: "id = 'x'" },
      user: 'ci-bot',
      groupId: '',
      customAttributes: { region: 'eu-west-1' },
    }, flags(), NOW);
    assert.deepEqual(checked, {
      kind: { category: 'Deployment', type: 'Basic', categoryAndType: 'DEPLOYMENT__BASIC' },
      store: {
        category: 'Deployment', type: 'Basic', timestamp: NOW, user: 'ci-bot', description: null, shortDescription: null, groupId: null,
        fields: { version: '2.14.0', commit: '9f1c2ab' }, customAttributes: { region: 'eu-west-1' }, source: 'timeslice:graphql',
      },
      messages: [],
    });
  });

  it('a feature flag needs its id; each category refuses the other\'s fields; a kind is required', () => {
    const base = { entitySearch: { query: "id = 'x'" } };
    const flag = checkedEvent({ ...base, categoryAndTypeData: { kind: { category: 'FEATURE_FLAG', type: 'BASIC' }, categoryFields: { featureFlag: { featureFlagId: 'new-checkout' } } } }, flags(), NOW);
    assert.deepEqual(flag.store.fields, { featureFlagId: 'new-checkout' });
    refuses(() => checkedEvent({ ...base, categoryAndTypeData: { kind: { category: 'Feature Flag', type: 'Basic' } } }, flags(), NOW),
      'A Feature Flag needs categoryAndTypeData.categoryFields.featureFlag.featureFlagId: the flag changed');
    refuses(() => checkedEvent({ ...base, categoryAndTypeData: { kind: { category: 'Deployment', type: 'Basic' }, categoryFields: { deployment: { version: ' ' } } } }, flags(), NOW),
      'A Deployment needs categoryAndTypeData.categoryFields.deployment.version: the version deployed');
    refuses(() => checkedEvent({ ...base, categoryAndTypeData: { kind: { category: 'Business Event', type: 'Other' }, categoryFields: { deployment: { version: '1' } } } }, flags(), NOW),
      "categoryAndTypeData.categoryFields.deployment is for category Deployment; this event's category is Business Event");
    refuses(() => checkedEvent({ ...base, categoryAndTypeData: { kind: { category: 'Operational', type: 'Crash' }, categoryFields: { featureFlag: { featureFlagId: 'f' } } } }, flags(), NOW),
      "categoryAndTypeData.categoryFields.featureFlag is for category Feature Flag; this event's category is Operational");
    refuses(() => checkedEvent(base, flags(), NOW),
      'categoryAndTypeData.kind is required: the category and type of the change, e.g. {category: "Deployment", type: "Basic"}');
  });

  it('cuts a long description with a note, or refuses it with FAIL_ON_FIELD_LENGTH', () => {
    const input = { entitySearch: { query: "id = 'x'" }, categoryAndTypeData: { kind: { category: 'Operational', type: 'Crash' } }, description: 'd'.repeat(5000) };
    const cut = checkedEvent(input, flags(), NOW);
    assert.equal(cut.store.description, 'd'.repeat(4096));
    assert.deepEqual(cut.messages, ['description was 5000 characters long and was truncated to 4096']);
    refuses(() => checkedEvent(input, flags('FAIL_ON_FIELD_LENGTH'), NOW), 'description is 5000 characters long; at most 4096 are allowed (FAIL_ON_FIELD_LENGTH)');
  });
});

describe('checkedDeployment', () => {
  it('is a Deployment event of the deployment type\'s display form, Basic by default', () => {
    assert.deepEqual(checkedDeployment({ entityGuid: 'g', version: '2.14.0', deploymentType: 'BLUE_GREEN', user: 'ci-bot', commit: '9f1c2ab', timestamp: NOW - 1000 }, flags(), NOW), {
      category: 'Deployment', type: 'Blue Green', timestamp: NOW - 1000, user: 'ci-bot', description: null, groupId: null,
      fields: { version: '2.14.0', commit: '9f1c2ab' }, source: 'timeslice:graphql', eventType: 'Deployment',
    });
    assert.equal(checkedDeployment({ entityGuid: 'g', version: '1' }, flags(), NOW).type, 'Basic');
    refuses(() => checkedDeployment({ entityGuid: 'g', version: '' }, flags(), NOW), 'deployment.version must not be empty: the version deployed');
    refuses(() => checkedDeployment({ entityGuid: 'g', version: 'v'.repeat(4097) }, flags('FAIL_ON_FIELD_LENGTH'), NOW),
      'deployment.version is 4097 characters long; at most 4096 are allowed (FAIL_ON_FIELD_LENGTH)');
  });
});

describe('views of stored events', () => {
  const attributes = {
    changeTrackingId: '6c1f9e2a-8d44-4a0b-b7f1-0e93d5a2c7aa', deploymentId: 7, category: 'Deployment', type: 'Rolling', version: '2.14.0',
    commit: '9f1c2ab', user: 'ci-bot', shortDescription: 'ci-bot deployed version 2.14.0 to billing-api', 'entity.guid': 'GUID', 'entity.name': 'billing-api',
    appId: 77001, appName: 'billing-api', 'service.source': 'timeslice:graphql', 'customAttributes.region': 'eu-west-1', 'customAttributes.pods': 12,
  };

  it('eventView: the typename, the stored fields, custom attributes under their own names', () => {
    assert.deepEqual(eventView({ timestamp: NOW, attributes }, 'DEPLOYMENT__ROLLING', { outline: true }), {
      __typename: 'ChangeTrackingDeploymentEvent', category: 'Deployment', categoryAndType: 'DEPLOYMENT__ROLLING',
      changeTrackingId: '6c1f9e2a-8d44-4a0b-b7f1-0e93d5a2c7aa', customAttributes: { region: 'eu-west-1', pods: 12 }, description: null,
      entity: { outline: true }, groupId: null, shortDescription: 'ci-bot deployed version 2.14.0 to billing-api', timestamp: NOW, type: 'Rolling',
      user: 'ci-bot', version: '2.14.0', changelog: null, commit: '9f1c2ab', deepLink: null,
    });
    const generic = eventView({ timestamp: NOW, attributes: { changeTrackingId: 'id', category: 'Operational', type: 'Crash' } }, 'OPERATIONAL__CRASH', null);
    assert.equal(generic.__typename, 'ChangeTrackingGenericEvent');
    assert.equal(generic.customAttributes, null);
    assert.equal('version' in generic, false);
  });

  it('deploymentView: deploymentId is the change tracking id; the type as the enum', () => {
    assert.deepEqual(deploymentView({ timestamp: NOW, attributes }), {
      changelog: null, commit: '9f1c2ab', customAttributes: { region: 'eu-west-1', pods: 12 }, deepLink: null, deploymentId: '6c1f9e2a-8d44-4a0b-b7f1-0e93d5a2c7aa', deploymentType: 'ROLLING',
      description: null, entityGuid: 'GUID', groupId: null, timestamp: NOW, user: 'ci-bot', version: '2.14.0',
    });
    assert.equal(deploymentView({ timestamp: NOW, attributes: { changeTrackingId: 'x', 'entity.guid': 'G', type: 'Basic' } }).version, '', 'a deployment stored without a version');
  });
});
