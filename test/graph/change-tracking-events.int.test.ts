import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GraphQLEnumType } from 'graphql';
import { CUSTOM_CATEGORY_TYPE, DEPLOYMENT_TYPES, STANDARD_CATEGORY_TYPES } from '../../src/api/graphql/change-tracking.js';
import { buildGraphSchema } from '../../src/api/graphql/graph-schema.js';
import { graphData } from '../helpers/graph-client.js';
import { rest } from '../helpers/rest-fixture.js';
import { apmGuid, connect, mobileGuid, refusal, secondAccount, START_MS, startGraphFixture, type GraphFixture } from './mutations-fixture.js';

/*
 * changeTrackingCreateEvent and changeTrackingCreateDeployment through a real server, and what
 * reads the events back: NRQL over ChangeTrackingEvent and Deployment, REST v2's deployment list, and the
 * entities' deploymentSearch and deployments. Each expected value is written out from the input.
 */

let f: GraphFixture;
let checkout: number;
let worker: number;
let mobile: number;
before(async () => {
  f = await startGraphFixture();
  checkout = Number((await connect(f.ts, 'checkout-web')).application_id);
  worker = Number((await connect(f.ts, 'checkout-worker')).application_id);
  const created = await graphData(f.ts, 'mutation { agentApplicationCreateMobile(accountId: 1, name: "shop-ios") { guid } }');
  mobile = Number(Buffer.from(created.agentApplicationCreateMobile.guid, 'base64').toString('utf8').split('|')[3]);
});
after(() => f?.ts.stop());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const DAY = 24 * 60 * 60_000;

const EVENT_FIELDS = `changeTrackingEvent {
  __typename category categoryAndType changeTrackingId customAttributes description groupId shortDescription timestamp type user
  entity { __typename guid name }
  ... on ChangeTrackingDeploymentEvent { version commit changelog deepLink }
  ... on ChangeTrackingFeatureFlagEvent { featureFlagId }
} messages`;
const CREATE_EVENT = `mutation($event: ChangeTrackingCreateEventInput!, $rules: ChangeTrackingDataHandlingRules) {
  changeTrackingCreateEvent(changeTrackingEvent: $event, dataHandlingRules: $rules) { ${EVENT_FIELDS} }
}`;
const CREATE_DEPLOYMENT = `mutation($deployment: ChangeTrackingDeploymentInput!, $rules: ChangeTrackingDataHandlingRules) {
  changeTrackingCreateDeployment(deployment: $deployment, dataHandlingRules: $rules) {
    changelog commit deepLink deploymentId deploymentType description entityGuid groupId timestamp user version
  }
}`;

/** Rows of an NRQL query through the graph, over a window around the test's clock. */
async function nrql(where: string, select = '*', key?: string): Promise<Record<string, unknown>[]> {
  const query = `SELECT ${select} FROM ChangeTrackingEvent, Deployment WHERE ${where} SINCE ${START_MS - 2 * DAY} UNTIL ${START_MS + 2 * DAY} LIMIT MAX`;
  const data = await graphData(f.ts, 'query($q: Nrql!) { actor { nrql(accounts: [1], query: $q) { results } } }', { q: query }, key === undefined ? {} : { key });
  return data.actor.nrql.results;
}

const eventCount = async () => Number((await nrql('changeTrackingId IS NOT NULL', 'count(*)'))[0]!.count);

describe('the contract', () => {
  it('the standard pairs are the schema\'s ChangeTrackingCategoryType values but the custom one; the deployment types its ChangeTrackingDeploymentType', () => {
    const schema = buildGraphSchema();
    const values = (name: string) => (schema.getType(name) as GraphQLEnumType).getValues().map((v) => v.name).sort();
    assert.deepEqual(values('ChangeTrackingCategoryType'), [...STANDARD_CATEGORY_TYPES, CUSTOM_CATEGORY_TYPE].sort());
    assert.deepEqual(values('ChangeTrackingDeploymentType'), [...DEPLOYMENT_TYPES].sort());
  });
});

describe('changeTrackingCreateEvent', () => {
  it('a deployment found by domainId, with custom attributes as an object literal (the reference example)', async () => {
    const now = f.clock.ms;
    const data = await graphData(f.ts, `mutation { changeTrackingCreateEvent(changeTrackingEvent: {
      categoryAndTypeData: {kind: {category: "deployment", type: "basic"}, categoryFields: {deployment: {version: "2.14.0", commit: "9f1c2ab"}}},
      entitySearch: {query: "domainId = '${checkout}' AND domain = 'APM'"}, user: "ci-bot", customAttributes: {region: "eu-west-1", canary: false, pods: 12}
    }) { ${EVENT_FIELDS} } }`);
    const result = data.changeTrackingCreateEvent;
    const id = result.changeTrackingEvent.changeTrackingId;
    assert.match(id, UUID);
    assert.deepEqual(result, {
      changeTrackingEvent: {
        __typename: 'ChangeTrackingDeploymentEvent', category: 'Deployment', categoryAndType: 'DEPLOYMENT__BASIC', changeTrackingId: id,
        customAttributes: { region: 'eu-west-1', canary: false, pods: 12 }, description: null, groupId: null,
        shortDescription: 'ci-bot deployed version 2.14.0 to checkout-web', timestamp: now, type: 'Basic', user: 'ci-bot',
        entity: { __typename: 'ApmApplicationEntityOutline', guid: apmGuid(checkout), name: 'checkout-web' },
        version: '2.14.0', commit: '9f1c2ab', changelog: null, deepLink: null,
      },
      messages: [],
    });

    // NRQL reads the event with the graph's service.source; REST v2 lists it as a deployment of the application.
    const [row] = await nrql(`changeTrackingId = '${id}'`);
    const deploymentId = row!.deploymentId as number;
    assert.ok(Number.isInteger(deploymentId));
    assert.deepEqual(row, {
      timestamp: now, changeTrackingId: id, deploymentId, category: 'Deployment', type: 'Basic', version: '2.14.0', commit: '9f1c2ab', user: 'ci-bot',
      shortDescription: 'ci-bot deployed version 2.14.0 to checkout-web', 'entity.guid': apmGuid(checkout), 'entity.name': 'checkout-web',
      appId: checkout, appName: 'checkout-web', 'service.source': 'timeslice:graphql',
      'customAttributes.region': 'eu-west-1', 'customAttributes.canary': false, 'customAttributes.pods': 12,
    });
    const listed = (await rest(f.ts, 'GET', `/v2/applications/${checkout}/deployments.json`)).json().deployments;
    assert.deepEqual(listed, [{
      id: deploymentId, revision: '2.14.0', changelog: null, description: null, user: 'ci-bot',
      timestamp: new Date(now).toISOString().replace('.000Z', '+00:00'), links: { application: checkout },
    }]);
  });

  it('a feature flag on a mobile application, custom attributes from variables', async () => {
    f.clock.ms += 60_000;
    const data = await graphData(f.ts, CREATE_EVENT, {
      event: {
        categoryAndTypeData: { kind: { category: 'FEATURE_FLAG', type: 'BASIC' }, categoryFields: { featureFlag: { featureFlagId: 'new-checkout-flow' } } },
        entitySearch: { query: "name = 'shop-ios' AND domain = 'MOBILE'" },
        user: 'product@example.com', shortDescription: 'Enabled new checkout flow', groupId: 'rollout-7', customAttributes: { percent: 25 },
      },
    });
    const event = data.changeTrackingCreateEvent.changeTrackingEvent;
    assert.deepEqual(event, {
      __typename: 'ChangeTrackingFeatureFlagEvent', category: 'Feature Flag', categoryAndType: 'FEATURE_FLAG__BASIC', changeTrackingId: event.changeTrackingId,
      customAttributes: { percent: 25 }, description: null, groupId: 'rollout-7', shortDescription: 'Enabled new checkout flow', timestamp: f.clock.ms,
      type: 'Basic', user: 'product@example.com', entity: { __typename: 'MobileApplicationEntityOutline', guid: mobileGuid(mobile), name: 'shop-ios' },
      featureFlagId: 'new-checkout-flow',
    });
    const [row] = await nrql(`changeTrackingId = '${event.changeTrackingId}'`, "featureFlagId, entity.guid, service.source, deploymentId");
    assert.deepEqual({ ...row, timestamp: undefined }, { timestamp: undefined, featureFlagId: 'new-checkout-flow', 'entity.guid': mobileGuid(mobile), 'service.source': 'timeslice:graphql', deploymentId: null });
  });

  it('a custom pair with ALLOW_CUSTOM_CATEGORY_OR_TYPE keeps its casing; a time 23 hours back is kept', async () => {
    const at = f.clock.ms - 23 * 60 * 60_000;
    const data = await graphData(f.ts, CREATE_EVENT, {
      event: {
        categoryAndTypeData: { kind: { category: 'External Event', type: 'Cloud Provider Outage' } },
        entitySearch: { query: `id = '${apmGuid(worker)}'` }, description: 'US-East outage', timestamp: at,
      },
      rules: { validationFlags: ['ALLOW_CUSTOM_CATEGORY_OR_TYPE'] },
    });
    const event = data.changeTrackingCreateEvent.changeTrackingEvent;
    assert.deepEqual(event, {
      __typename: 'ChangeTrackingGenericEvent', category: 'External Event', categoryAndType: 'CUSTOMER_DEFINED__CUSTOM', changeTrackingId: event.changeTrackingId,
      customAttributes: null, description: 'US-East outage', groupId: null, shortDescription: 'External Event (Cloud Provider Outage) on checkout-worker',
      timestamp: at, type: 'Cloud Provider Outage', user: null, entity: { __typename: 'ApmApplicationEntityOutline', guid: apmGuid(worker), name: 'checkout-worker' },
    });
    assert.deepEqual((await rest(f.ts, 'GET', `/v2/applications/${worker}/deployments.json`)).json().deployments, [], 'not a deployment');
  });

  it('over-long text is cut with a message, or refused with FAIL_ON_FIELD_LENGTH', async () => {
    const event = {
      categoryAndTypeData: { kind: { category: 'Operational', type: 'Server Reboot' } },
      entitySearch: { query: `id = '${apmGuid(worker)}'` }, description: 'x'.repeat(5000),
    };
    const before = await eventCount();
    assert.deepEqual(await refusal(f.ts, CREATE_EVENT, { event, rules: { validationFlags: ['FAIL_ON_FIELD_LENGTH'] } }), {
      message: 'description is 5000 characters long; at most 4096 are allowed (FAIL_ON_FIELD_LENGTH)', errorClass: 'INVALID_INPUT',
      data: { changeTrackingCreateEvent: null }, path: ['changeTrackingCreateEvent'],
    });
    assert.equal(await eventCount(), before);
    const cut = (await graphData(f.ts, CREATE_EVENT, { event })).changeTrackingCreateEvent;
    assert.deepEqual(cut.messages, ['description was 5000 characters long and was truncated to 4096']);
    assert.equal(cut.changeTrackingEvent.description, 'x'.repeat(4096));
    const [row] = await nrql(`changeTrackingId = '${cut.changeTrackingEvent.changeTrackingId}'`, 'description');
    assert.equal(row!.description, 'x'.repeat(4096));
  });

  it('refuses an entity search matching none or several, a bad query, a time out of range, a custom pair, reserved keys, a missing version; nothing is stored', async () => {
    const before = await eventCount();
    const deployment = { kind: { category: 'Deployment', type: 'Basic' }, categoryFields: { deployment: { version: '1' } } };
    const cases: [Record<string, unknown>, string, string][] = [
      [{ categoryAndTypeData: deployment, entitySearch: { query: "name = 'nothing-here'" } }, 'NOT_FOUND',
        'No entity matches the entity search query "name = \'nothing-here\'" in the accounts this API key can reach'],
      [{ categoryAndTypeData: deployment, entitySearch: { query: "name LIKE 'checkout%' AND domain = 'APM'" } }, 'INVALID_INPUT',
        `The entity search query "name LIKE 'checkout%' AND domain = 'APM'" matches 2 entities (checkout-web (${apmGuid(checkout)}), checkout-worker (${apmGuid(worker)})); ` +
          "it must match exactly one: narrow it, e.g. \"id = '<entity GUID>'\""],
      [{ categoryAndTypeData: deployment, entitySearch: { query: '   ' } }, 'INVALID_INPUT', "entitySearch.query must not be empty: name the entity, e.g. \"id = '<entity GUID>'\""],
      [{ categoryAndTypeData: deployment, entitySearch: { query: `id = '${apmGuid(checkout)}'`, }, timestamp: f.clock.ms - DAY - 1 }, 'INVALID_INPUT',
        `timestamp ${f.clock.ms - DAY - 1} (${new Date(f.clock.ms - DAY - 1).toISOString()}) is more than 24 hours from now (${new Date(f.clock.ms).toISOString()}): change tracking takes times within ±24 h of the request`],
      [{ categoryAndTypeData: { kind: { category: 'Deployment', type: 'Rainbow' }, categoryFields: deployment.categoryFields }, entitySearch: { query: `id = '${apmGuid(checkout)}'` } }, 'INVALID_INPUT',
        "'Deployment' / 'Rainbow' is not a standard category and type (the types of Deployment are Basic, Blue Green, Canary, Other, Rolling, Shadow); send dataHandlingRules: {validationFlags: [ALLOW_CUSTOM_CATEGORY_OR_TYPE]} to use your own"],
      [{ categoryAndTypeData: deployment, entitySearch: { query: `id = '${apmGuid(checkout)}'` }, customAttributes: { Since: 'yesterday' } }, 'INVALID_INPUT',
        "customAttributes: 'Since' is reserved (an attribute of the event itself or an NRQL keyword); choose another name"],
      [{ categoryAndTypeData: deployment, entitySearch: { query: `id = '${apmGuid(checkout)}'` }, customAttributes: { nested: { a: 1 } } }, 'INVALID_INPUT',
        'customAttributes.nested must be a string, a number or a boolean, not object'],
      [{ categoryAndTypeData: { kind: { category: 'Deployment', type: 'Basic' } }, entitySearch: { query: `id = '${apmGuid(checkout)}'` } }, 'INVALID_INPUT',
        'A Deployment needs categoryAndTypeData.categoryFields.deployment.version: the version deployed'],
    ];
    for (const [event, errorClass, message] of cases) {
      assert.deepEqual(await refusal(f.ts, CREATE_EVENT, { event }), { message, errorClass, data: { changeTrackingCreateEvent: null }, path: ['changeTrackingCreateEvent'] });
    }
    const badQuery = await refusal(f.ts, CREATE_EVENT, { event: { categoryAndTypeData: deployment, entitySearch: { query: "name = = 'x'" } } });
    assert.equal(badQuery.errorClass, 'INVALID_INPUT');
    assert.deepEqual(badQuery.data, { changeTrackingCreateEvent: null });
    assert.equal(await eventCount(), before);
    assert.equal((await rest(f.ts, 'GET', `/v2/applications/${checkout}/deployments.json`)).json().deployments.length, 1);
  });

  it('another account\'s key finds no entity of this account, and cannot write deployments to it', async () => {
    const other = await secondAccount(f.ts);
    const before = await eventCount();
    const query = `id = '${apmGuid(checkout)}'`;
    assert.deepEqual(await refusal(f.ts, CREATE_EVENT, {
      event: { categoryAndTypeData: { kind: { category: 'Operational', type: 'Crash' } }, entitySearch: { query } },
    }, other.userKey), {
      message: `No entity matches the entity search query "${query}" in the accounts this API key can reach`, errorClass: 'NOT_FOUND',
      data: { changeTrackingCreateEvent: null }, path: ['changeTrackingCreateEvent'],
    });
    assert.deepEqual(await refusal(f.ts, CREATE_DEPLOYMENT, { deployment: { entityGuid: apmGuid(checkout), version: '6.6.6' } }, other.userKey), {
      message: `No entity with GUID '${apmGuid(checkout)}' in the accounts this API key can reach`, errorClass: 'NOT_FOUND',
      data: { changeTrackingCreateDeployment: null }, path: ['changeTrackingCreateDeployment'],
    });
    const readOther = await refusal(f.ts, 'query { actor { nrql(accounts: [1], query: "SELECT count(*) FROM ChangeTrackingEvent") { results } } }', undefined, other.userKey);
    assert.equal(readOther.errorClass, 'FORBIDDEN');
    assert.equal(await eventCount(), before);
  });
});

describe('changeTrackingCreateDeployment, deploymentSearch and deployments', () => {
  let billing: number;
  let t0: number;
  let restId: number;
  const ids: Record<string, string> = {};
  before(async () => {
    billing = Number((await connect(f.ts, 'billing-api')).application_id);
    f.clock.ms += 60 * 60_000;
    t0 = f.clock.ms;
  });

  it('a REST deployment, then one made by changeTrackingCreateDeployment (the reference example): the same records REST lists', async () => {
    const made = await rest(f.ts, 'POST', `/v2/applications/${billing}/deployments.json`, { body: { deployment: { revision: 'r1', user: 'rest-user' } } });
    assert.equal(made.status, 201);
    restId = made.json().deployment.id;
    f.clock.ms += 60_000;
    const data = await graphData(f.ts, CREATE_DEPLOYMENT, {
      deployment: { version: '2.0.0', entityGuid: apmGuid(billing), user: 'ci-bot', deploymentType: 'ROLLING', commit: '9f1c2ab', changelog: 'fix rounding', groupId: 'rel-77' },
      rules: { validationFlags: ['FAIL_ON_FIELD_LENGTH', 'FAIL_ON_REST_API_FAILURES'] },
    });
    const result = data.changeTrackingCreateDeployment;
    assert.match(result.deploymentId, UUID);
    ids.rolling = result.deploymentId;
    assert.deepEqual(result, {
      changelog: 'fix rounding', commit: '9f1c2ab', deepLink: null, deploymentId: result.deploymentId, deploymentType: 'ROLLING', description: null,
      entityGuid: apmGuid(billing), groupId: 'rel-77', timestamp: t0 + 60_000, user: 'ci-bot', version: '2.0.0',
    });
    const [row] = await nrql(`changeTrackingId = '${result.deploymentId}'`, 'type, category, service.source, shortDescription');
    assert.deepEqual({ ...row, timestamp: undefined }, { timestamp: undefined, type: 'Rolling', category: 'Deployment', 'service.source': 'timeslice:graphql', shortDescription: 'ci-bot deployed version 2.0.0 to billing-api' });
    const listed = (await rest(f.ts, 'GET', `/v2/applications/${billing}/deployments.json`)).json().deployments;
    assert.deepEqual(listed.map((d: { revision: string; changelog: string | null }) => [d.revision, d.changelog]), [['2.0.0', 'fix rounding'], ['r1', null]]);
  });

  it('refuses an empty version, an unknown GUID and a time beyond a day; nothing is stored', async () => {
    const before = await eventCount();
    assert.equal((await refusal(f.ts, CREATE_DEPLOYMENT, { deployment: { entityGuid: apmGuid(billing), version: '' } })).message, 'deployment.version must not be empty: the version deployed');
    assert.equal((await refusal(f.ts, CREATE_DEPLOYMENT, { deployment: { entityGuid: apmGuid(9999), version: '1' } })).errorClass, 'NOT_FOUND');
    assert.equal((await refusal(f.ts, CREATE_DEPLOYMENT, { deployment: { entityGuid: 'QUJD', version: '1' } })).message,
      "deployment.entityGuid 'QUJD' is not an entity GUID: expected unpadded base64 of accountId|DOMAIN|TYPE|domainId");
    assert.equal((await refusal(f.ts, CREATE_DEPLOYMENT, { deployment: { entityGuid: apmGuid(billing), version: '1', timestamp: f.clock.ms + DAY + 1 } })).errorClass, 'INVALID_INPUT');
    assert.equal(await eventCount(), before);
  });

  it('deploymentSearch: every deployment newest first, one deleted through REST left out as REST leaves it', async () => {
    f.clock.ms += 60_000;
    const event = await graphData(f.ts, CREATE_EVENT, {
      event: {
        categoryAndTypeData: { kind: { category: 'Deployment', type: 'Canary' }, categoryFields: { deployment: { version: '2.1.0', deepLink: 'https://ci.example.com/42' } } },
        entitySearch: { query: `id = '${apmGuid(billing)}'` }, description: 'canary 10%',
      },
    });
    ids.canary = event.changeTrackingCreateEvent.changeTrackingEvent.changeTrackingId;
    f.clock.ms += 60_000;
    assert.equal((await rest(f.ts, 'DELETE', `/v2/applications/${billing}/deployments/${restId}.json`)).status, 200);
    f.clock.ms += 60_000;
    const [restRow] = await nrql(`deploymentId = ${restId}`, 'changeTrackingId');
    ids.rest = String(restRow!.changeTrackingId);

    const search = `query($g: EntityGuid!, $filter: ChangeTrackingSearchFilter) { actor { entity(guid: $g) { deploymentSearch(filter: $filter) { results {
      changelog commit deepLink deploymentId deploymentType description entityGuid groupId timestamp user version } } } } }`;
    const results = async (filter?: Record<string, unknown>) =>
      (await graphData(f.ts, search, { g: apmGuid(billing), ...(filter ? { filter } : {}) })).actor.entity.deploymentSearch.results;
    const canary = {
      changelog: null, commit: null, deepLink: 'https://ci.example.com/42', deploymentId: ids.canary, deploymentType: 'CANARY', description: 'canary 10%',
      entityGuid: apmGuid(billing), groupId: null, timestamp: t0 + 120_000, user: null, version: '2.1.0',
    };
    const rolling = {
      changelog: 'fix rounding', commit: '9f1c2ab', deepLink: null, deploymentId: ids.rolling, deploymentType: 'ROLLING', description: null,
      entityGuid: apmGuid(billing), groupId: 'rel-77', timestamp: t0 + 60_000, user: 'ci-bot', version: '2.0.0',
    };
    assert.deepEqual(await results(), [canary, rolling]);
    assert.deepEqual(await results({ limit: 1 }), [canary]);
    assert.deepEqual(await results({ query: "version LIKE '2.%'" }), [canary, rolling]);
    assert.deepEqual(await results({ timeWindow: { startTime: t0 + 30_000, endTime: t0 + 90_000 } }), [rolling]);
    assert.deepEqual(await results({ timeWindow: { startTime: t0 - DAY, endTime: t0 } }), [], 'the window ends before its end time');
    // REST agrees: the deleted one is gone from its list too; NRQL still reads its event.
    assert.deepEqual((await rest(f.ts, 'GET', `/v2/applications/${billing}/deployments.json`)).json().deployments.map((d: { revision: string }) => d.revision), ['2.1.0', '2.0.0']);
  });

  it('deploymentSearch refuses a filter query that is more than a condition, a bad limit and an empty window', async () => {
    const search = 'query($g: EntityGuid!, $filter: ChangeTrackingSearchFilter) { actor { entity(guid: $g) { deploymentSearch(filter: $filter) { results { version } } } } }';
    const refused = async (filter: Record<string, unknown>) => refusal(f.ts, search, { g: apmGuid(billing), filter });
    // Positions are in filter.query's own text: SINCE and LIMIT are its 19th character, the second '=' its 11th.
    const onlyCondition = (error: string) =>
      `filter.query is the condition of a WHERE clause only (e.g. "version LIKE '2.%'"; the window is filter.timeWindow and the count filter.limit): ${error}`;
    assert.equal((await refused({ query: "version = '2.0.0' SINCE 1 day ago" })).message, onlyCondition("Error at line 1 position 19, unexpected 'SINCE'; expected the end of the condition"));
    assert.equal((await refused({ query: "version = '2.0.0' LIMIT 5" })).message, onlyCondition("Error at line 1 position 19, unexpected 'LIMIT'; expected the end of the condition"));
    const syntax = await refused({ query: 'version = = 1' });
    assert.equal(syntax.errorClass, 'INVALID_INPUT');
    assert.equal(syntax.message, onlyCondition("Error at line 1 position 11, unexpected '='; expected an expression"));
    assert.deepEqual(syntax.path, ['actor', 'entity', 'deploymentSearch']);
    assert.equal((await refused({ limit: 0 })).message, 'filter.limit must be 1 to 5000, not 0');
    assert.equal((await refused({ limit: 5001 })).message, 'filter.limit must be 1 to 5000, not 5001');
    assert.equal((await refused({ timeWindow: { startTime: t0, endTime: t0 } })).message, 'filter.timeWindow.startTime must be before filter.timeWindow.endTime');
    assert.deepEqual(await refused({ timeWindow: { startTime: 0, endTime: Number.MAX_SAFE_INTEGER } }), {
      message: 'filter.timeWindow.endTime must be epoch milliseconds from 0 to 253402300799999 (the end of year 9999)', errorClass: 'INVALID_INPUT',
      data: { actor: { entity: { deploymentSearch: null } } }, path: ['actor', 'entity', 'deploymentSearch'],
    });
  });

  it('ApmApplicationEntity.deployments: REST\'s terms (revision), newest first; other entities\' deploymentSearch is their own', async () => {
    const data = await graphData(f.ts, `query($g: EntityGuid!, $w: TimeWindowInput) { actor { entity(guid: $g) { ... on ApmApplicationEntity {
      deployments(timeWindow: $w) { changelog description permalink revision timestamp user } } } } }`, { g: apmGuid(billing), w: { startTime: t0 + 1, endTime: t0 + 180_000 } });
    const origin = 'http://localhost:80';
    assert.deepEqual(data.actor.entity.deployments, [
      { changelog: null, description: 'canary 10%', permalink: `${origin}/redirect/entity/${apmGuid(billing)}?changeTrackingId=${ids.canary}`, revision: '2.1.0', timestamp: t0 + 120_000, user: null },
      { changelog: 'fix rounding', description: null, permalink: `${origin}/redirect/entity/${apmGuid(billing)}?changeTrackingId=${ids.rolling}`, revision: '2.0.0', timestamp: t0 + 60_000, user: 'ci-bot' },
    ]);
    const mobileSearch = await graphData(f.ts, 'query($g: EntityGuid!) { actor { entity(guid: $g) { deploymentSearch { results { version } } } } }', { g: mobileGuid(mobile) });
    assert.deepEqual(mobileSearch.actor.entity.deploymentSearch.results, [], 'the feature flag event is no deployment');
  });
});
