import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { graphData } from '../helpers/graph-client.js';
import {
  apmGuid, browserGuid, connect, guidOf, keyTransactionGuid, mobileGuid, refusal, startGraphFixture, type GraphFixture,
} from './mutations-fixture.js';

/*
 * What real clients' documents name that Timeslice does not keep (schema.graphql, "What Timeslice
 * does not keep"): the untracked entity fields answer, for each kind Timeslice has, what an entity
 * without such data answers; the kinds it never has validate in fragments and implement the entity
 * interfaces. And the two inputs client-go sends that are now stored: session replay and session
 * trace settings, and a deployment's custom attributes. Expected values are written out literally.
 */

let f: GraphFixture;
const ids = { apm: 0, browser: 0, mobile: 0, keyTransaction: 0 };
const idOf = (guid: string) => Number(Buffer.from(guid, 'base64').toString('utf8').split('|')[3]);

before(async () => {
  f = await startGraphFixture();
  ids.apm = Number((await connect(f.ts, 'checkout-api')).application_id);
  const made = await graphData(f.ts, `mutation {
    browser: agentApplicationCreateBrowser(accountId: 1, name: "storefront") { guid }
    mobile: agentApplicationCreateMobile(accountId: 1, name: "shop-android") { guid }
    kt: keyTransactionCreate(applicationGuid: "${apmGuid(ids.apm)}", name: "Pay", metricName: "WebTransaction/Expressjs/POST//pay", apdexTarget: 0.5, browserApdexTarget: 3) { guid }
  }`);
  ids.browser = idOf(made.browser.guid);
  ids.mobile = idOf(made.mobile.guid);
  ids.keyTransaction = idOf(made.kt.guid);
});
after(() => f?.ts.stop());

/** Every untracked field of a full entity, each with all the members client-go selects. */
const UNTRACKED_ENTITY = `
  __typename
  goldenMetrics { context { account guid } metrics { metricName name query title unit } }
  goldenTags { context { account guid } tags { key } }
  recentAlertViolations { agentUrl alertSeverity closedAt label level openedAt violationId violationUrl }
  relatedEntities { nextCursor results { __typename createdAt type } }
  relationships { source { accountId entityType guid } target { accountId entityType guid } type }
  serviceLevel { indicators { createdAt description entityGuid guid id name slug updatedAt } }
  tags { key values }
  tagsWithMetadata { key values { mutable value } }
  ... on ApmApplicationEntity { metricNormalizationRules { action applicationGuid applicationName createdAt enabled id matchExpression notes replacement } }
  ... on BrowserApplicationEntity { metricNormalizationRules { id } }
  ... on MobileApplicationEntity { metricNormalizationRules { id } }`;

const EMPTY_GOLDEN = {
  goldenMetrics: { context: { account: null, guid: null }, metrics: [] },
  goldenTags: { context: { account: null, guid: null }, tags: [] },
};

/** The tags of account 1 ("Default") every entity carries. */
const ACCOUNT_TAGS = [
  { key: 'accountId', values: ['1'] },
  { key: 'trustedAccountId', values: ['1'] },
  { key: 'account', values: ['Default'] },
];

describe('untracked entity fields', () => {
  it('each full entity kind: empty golden metrics, tags, violations, relationships and service levels; its tags with no metadata', async () => {
    const cases = [
      ['ApmApplicationEntity', apmGuid(ids.apm), [...ACCOUNT_TAGS, { key: 'language', values: ['nodejs'] }], true],
      ['BrowserApplicationEntity', browserGuid(ids.browser), ACCOUNT_TAGS, true],
      ['MobileApplicationEntity', mobileGuid(ids.mobile), ACCOUNT_TAGS, true],
      ['KeyTransactionEntity', keyTransactionGuid(ids.keyTransaction), ACCOUNT_TAGS, false],
    ] as const;
    for (const [typename, guid, tags, hasRules] of cases) {
      const data = await graphData(f.ts, `query($g: EntityGuid!) { actor { entity(guid: $g) { ${UNTRACKED_ENTITY} } } }`, { g: guid });
      assert.deepEqual(data.actor.entity, {
        __typename: typename,
        ...EMPTY_GOLDEN,
        recentAlertViolations: [],
        relatedEntities: { nextCursor: null, results: [] },
        relationships: [],
        serviceLevel: { indicators: [] },
        tags,
        tagsWithMetadata: tags.map(({ key, values }) => ({ key, values: values.map((value) => ({ mutable: false, value })) })),
        ...(hasRules ? { metricNormalizationRules: [] } : {}),
      }, typename);
    }
  });

  it('each outline kind in a search: empty golden metrics, golden tags and service levels', async () => {
    const data = await graphData(f.ts, `{ actor { entitySearch(query: "accountId = 1") { results { entities {
      __typename name goldenMetrics { context { account guid } metrics { metricName name query title unit } }
      goldenTags { context { account guid } tags { key } } serviceLevel { indicators { createdAt description entityGuid guid id name slug updatedAt } }
    } } } } }`);
    const outline = (typename: string, name: string) => ({ __typename: typename, name, ...EMPTY_GOLDEN, serviceLevel: { indicators: [] } });
    assert.deepEqual(data.actor.entitySearch.results.entities, [
      outline('ApmApplicationEntityOutline', 'checkout-api'),
      outline('KeyTransactionEntityOutline', 'Pay'),
      outline('MobileApplicationEntityOutline', 'shop-android'),
      outline('BrowserApplicationEntityOutline', 'storefront'),
    ]);
  });

  it('kinds Timeslice never has validate in fragments, implement the entity interfaces, and are never answered', async () => {
    const data = await graphData(f.ts, `query($g: EntityGuid!, $d: EntityGuid!) {
      workload: __type(name: "WorkloadEntity") { interfaces { name } }
      team: __type(name: "TeamEntityOutline") { interfaces { name } }
      edge: __type(name: "EntityRelationshipEdge") { possibleTypes { name } }
      actor {
        app: entity(guid: $g) { name ... on DashboardEntity { pages { guid } permissions } ... on SyntheticMonitorEntity { period monitorId } }
        dashboard: entity(guid: $d) { name ... on DashboardEntity { pages { guid } } }
        entitySearch(query: "name = 'checkout-api'") { results { entities { name ... on WorkloadEntityOutline { workloadStatus { statusValue } } ... on TeamEntityOutline { guid } } } }
      }
    }`, { g: apmGuid(ids.apm), d: guidOf(1, 'VIZ', 'DASHBOARD', 1) });
    assert.deepEqual(data.workload.interfaces, [{ name: 'AlertableEntity' }, { name: 'Entity' }]);
    assert.deepEqual(data.team.interfaces, [{ name: 'AlertableEntityOutline' }, { name: 'EntityOutline' }]);
    assert.deepEqual(data.edge.possibleTypes, [{ name: 'EntityRelationshipDetectedEdge' }, { name: 'EntityRelationshipUserDefinedEdge' }]);
    assert.deepEqual(data.actor.app, { name: 'checkout-api' });
    assert.equal(data.actor.dashboard, null, 'a dashboard GUID names nothing Timeslice holds');
    assert.deepEqual(data.actor.entitySearch.results.entities, [{ name: 'checkout-api' }]);
  });
});

const SESSION_SETTINGS = `sessionReplay {
  autoStart blockSelector collectFonts enabled errorSamplingRate inlineImages inlineStylesheet maskAllInputs
  maskInputOptions { color date datetimeLocal email month number range search select tel text textArea time url week }
  maskTextSelector samplingRate
} sessionTrace { enabled errorSamplingRate mode samplingRate }`;

const UPDATE_SESSIONS = `mutation($guid: EntityGuid!, $settings: AgentApplicationSettingsUpdateInput!) {
  agentApplicationSettingsUpdate(guid: $guid, settings: $settings) { browserSettings { ${SESSION_SETTINGS} } errors { description errorClass field } }
}`;

const NO_MASKED_TYPES = {
  color: false, date: false, datetimeLocal: false, email: false, month: false, number: false, range: false, search: false, select: false,
  tel: false, text: false, textArea: false, time: false, url: false, week: false,
};

describe('session replay and session trace settings', () => {
  const read = async () => (await graphData(f.ts, `query($g: EntityGuid!) { actor { entity(guid: $g) { ... on BrowserApplicationEntity { browserSettings { ${SESSION_SETTINGS} } } } } }`,
    { g: browserGuid(ids.browser) })).actor.entity.browserSettings;

  it('start at the browser agent\'s defaults', async () => {
    assert.deepEqual(await read(), {
      sessionReplay: {
        autoStart: true, blockSelector: '', collectFonts: false, enabled: false, errorSamplingRate: 100, inlineImages: false, inlineStylesheet: true,
        maskAllInputs: true, maskInputOptions: NO_MASKED_TYPES, maskTextSelector: '*', samplingRate: 10,
      },
      sessionTrace: { enabled: true, errorSamplingRate: 100, mode: 'FIXED_RATE', samplingRate: 100 },
    });
  });

  it('change as given and keep the rest; refusals name the field and change nothing', async () => {
    const data = await graphData(f.ts, UPDATE_SESSIONS, {
      guid: browserGuid(ids.browser),
      settings: {
        sessionReplay: {
          enabled: true, autoStart: false, samplingRate: 5, blockSelector: '.card-number', maskTextSelector: '', collectFonts: true,
          maskInputOptions: { email: true, tel: true }, maskAllInputs: false,
        },
        sessionTrace: { mode: 'PROBABILISTIC', samplingRate: 20, errorSamplingRate: 60 },
      },
    });
    const changed = {
      sessionReplay: {
        autoStart: false, blockSelector: '.card-number', collectFonts: true, enabled: true, errorSamplingRate: 100, inlineImages: false, inlineStylesheet: true,
        maskAllInputs: false, maskInputOptions: { ...NO_MASKED_TYPES, email: true, tel: true }, maskTextSelector: '', samplingRate: 5,
      },
      sessionTrace: { enabled: true, errorSamplingRate: 60, mode: 'PROBABILISTIC', samplingRate: 20 },
    };
    assert.deepEqual(data.agentApplicationSettingsUpdate, { browserSettings: changed, errors: [] });
    assert.deepEqual(await read(), changed);

    const refused = await graphData(f.ts, UPDATE_SESSIONS, {
      guid: browserGuid(ids.browser),
      settings: { sessionReplay: { errorSamplingRate: 120, inlineImages: true }, sessionTrace: { samplingRate: -1 } },
    });
    assert.deepEqual(refused.agentApplicationSettingsUpdate, {
      browserSettings: changed,
      errors: [
        { description: 'sessionReplay.errorSamplingRate must be ≤ 100 (a percentage)', errorClass: 'INVALID_INPUT', field: 'sessionReplay.errorSamplingRate' },
        { description: 'sessionTrace.samplingRate must be ≥ 0', errorClass: 'INVALID_INPUT', field: 'sessionTrace.samplingRate' },
      ],
    });
    assert.deepEqual(await read(), changed, 'inlineImages, valid on its own, is not written either');
  });

  it('a mode that is not NerdGraph\'s is refused by validation', async () => {
    const refused = await refusal(f.ts, UPDATE_SESSIONS, { guid: browserGuid(ids.browser), settings: { sessionTrace: { mode: 'ALWAYS' } } });
    assert.equal(refused.errorClass, 'INVALID_INPUT');
    assert.match(refused.message, /Value "ALWAYS" does not exist in "AgentApplicationSettingsSessionTraceModeInput" enum/);
  });
});

const CREATE_DEPLOYMENT = `mutation($deployment: ChangeTrackingDeploymentInput!) {
  changeTrackingCreateDeployment(deployment: $deployment) { customAttributes deploymentId version }
}`;

describe('changeTrackingCreateDeployment custom attributes', () => {
  const search = async () => (await graphData(f.ts, `query($g: EntityGuid!) { actor { entity(guid: $g) { deploymentSearch { results { customAttributes version } } } } }`,
    { g: apmGuid(ids.apm) })).actor.entity.deploymentSearch.results;

  it('are stored and read back, in the result and through deploymentSearch; none is null', async () => {
    const withAttributes = (await graphData(f.ts, CREATE_DEPLOYMENT, {
      deployment: { entityGuid: apmGuid(ids.apm), version: '3.1.0', customAttributes: { region: 'eu-west-1', pods: 12, canary: false } },
    })).changeTrackingCreateDeployment;
    assert.deepEqual({ ...withAttributes, deploymentId: typeof withAttributes.deploymentId }, {
      customAttributes: { region: 'eu-west-1', pods: 12, canary: false }, deploymentId: 'string', version: '3.1.0',
    });
    f.clock.ms += 1000;
    const literal = await graphData(f.ts, `mutation { changeTrackingCreateDeployment(deployment: {entityGuid: "${apmGuid(ids.apm)}", version: "3.1.1", customAttributes: {team: "payments"}}) { customAttributes } }`);
    assert.deepEqual(literal.changeTrackingCreateDeployment, { customAttributes: { team: 'payments' } });
    f.clock.ms += 1000;
    const without = await graphData(f.ts, CREATE_DEPLOYMENT, { deployment: { entityGuid: apmGuid(ids.apm), version: '3.1.2' } });
    assert.equal(without.changeTrackingCreateDeployment.customAttributes, null);
    assert.deepEqual(await search(), [
      { customAttributes: null, version: '3.1.2' },
      { customAttributes: { team: 'payments' }, version: '3.1.1' },
      { customAttributes: { region: 'eu-west-1', pods: 12, canary: false }, version: '3.1.0' },
    ]);
  });

  it('follow changeTrackingCreateEvent\'s rules: reserved names and values other than text, numbers and booleans are refused, nothing stored', async () => {
    const stored = (await search()).length;
    for (const [customAttributes, message] of [
      [{ version: '2' }, "customAttributes: 'version' is reserved (an attribute of the event itself or an NRQL keyword); choose another name"],
      [{ hosts: ['a', 'b'] }, 'customAttributes.hosts must be a string, a number or a boolean, not a list'],
      ['region=eu', 'customAttributes must be an object of string, number or boolean values, e.g. {region: "eu-west-1", pods: 12}'],
    ] as const) {
      const refused = await refusal(f.ts, CREATE_DEPLOYMENT, { deployment: { entityGuid: apmGuid(ids.apm), version: '9.9.9', customAttributes } });
      assert.deepEqual([refused.message, refused.errorClass, refused.data], [message, 'INVALID_INPUT', { changeTrackingCreateDeployment: null }]);
    }
    assert.equal((await search()).length, stored);
  });
});
