import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { escapeText, singularOf, toXml, xmlDocument } from './xml.js';

const DECL = '<?xml version="1.0" encoding="UTF-8"?>\n';

describe('toXml', () => {
  it('names the root after the first member that is not links, and renders links too', () => {
    const xml = toXml({
      links: { 'application.servers': '/v2/servers?ids={server_ids}' },
      applications: [
        {
          id: 4821930,
          name: 'checkout-web',
          reporting: false,
          last_reported_at: null,
          application_summary: { apdex_score: 0.96, host_count: 3 },
          links: { application_instances: [7700101, 7700102], servers: [] },
        },
      ],
    });
    assert.equal(
      xml,
      DECL +
        '<applications_response>' +
        '<links><application.servers>/v2/servers?ids={server_ids}</application.servers></links>' +
        '<applications><application><id>4821930</id><name>checkout-web</name><reporting>false</reporting>' +
        '<application_summary><apdex_score>0.96</apdex_score><host_count>3</host_count></application_summary>' +
        '<links><application_instances><application_instance>7700101</application_instance>' +
        '<application_instance>7700102</application_instance></application_instances><servers></servers></links>' +
        '</application></applications></applications_response>',
    );
  });

  it('renders metric data as the public scrapers read it', () => {
    const xml = toXml({
      metric_data: {
        from: '2024-03-05T14:00:00+00:00',
        metrics_not_found: [],
        metrics_found: ['Apdex'],
        metrics: [{ name: 'Apdex', timeslices: [{ from: '2024-03-05T14:00:00+00:00', values: { score: 0.93, s: 12 } }] }],
      },
    });
    assert.equal(
      xml,
      DECL +
        '<metric_data_response><metric_data><from>2024-03-05T14:00:00+00:00</from>' +
        '<metrics_not_found></metrics_not_found><metrics_found><metric>Apdex</metric></metrics_found>' +
        '<metrics><metric><name>Apdex</name><timeslices><timeslice><from>2024-03-05T14:00:00+00:00</from>' +
        '<values><score>0.93</score><s>12</s></values></timeslice></timeslices></metric></metrics>' +
        '</metric_data></metric_data_response>',
    );
  });

  it('names metric-name value lists <value>', () => {
    assert.equal(
      toXml({ metrics: [{ name: 'HttpDispatcher', values: ['call_count', 'average_call_time'] }] }),
      `${DECL}<metrics_response><metrics><metric><name>HttpDispatcher</name><values><value>call_count</value><value>average_call_time</value></values></metric></metrics></metrics_response>`,
    );
  });

  it('prints numbers as JSON does and leaves out null, undefined and non-finite members', () => {
    assert.equal(
      toXml({ application: { a: 1e21, b: -0, c: 0.1, d: null, e: undefined, f: Number.NaN, g: Number.POSITIVE_INFINITY, h: 5e-7 } }),
      `${DECL}<application_response><application><a>1e+21</a><b>0</b><c>0.1</c><h>5e-7</h></application></application_response>`,
    );
  });

  it('keeps the position of a null array item as an empty element', () => {
    assert.equal(toXml({ ids: [1, null, 2] }), `${DECL}<ids_response><ids><id>1</id><id/><id>2</id></ids></ids_response>`);
  });

  it('uses toJSON as JSON.stringify would', () => {
    assert.equal(
      toXml({ deployment: { timestamp: new Date(Date.UTC(2024, 2, 5, 14, 7)) } }),
      `${DECL}<deployment_response><deployment><timestamp>2024-03-05T14:07:00.000Z</timestamp></deployment></deployment_response>`,
    );
  });

  it('escapes text so that any value stays inside its element', () => {
    const name = `</name><admin>true</admin> & 'q' "dq"`;
    assert.equal(
      toXml({ application: { name } }),
      `${DECL}<application_response><application><name>&lt;/name&gt;&lt;admin&gt;true&lt;/admin&gt; &amp; &apos;q&apos; &quot;dq&quot;</name></application></application_response>`,
    );
  });

  it('replaces characters XML cannot carry, keeps tabs, newlines and astral characters', () => {
    assert.equal(escapeText('a\u0000b\u001Fc\uD800d\uFFFEe'), 'a\uFFFDb\uFFFDc\uFFFDd\uFFFDe');
    assert.equal(escapeText('line1\r\nline2\tx 😀'), 'line1&#13;\nline2\tx 😀');
  });

  it('repairs keys that are not XML names and keeps the original key in an attribute', () => {
    assert.equal(
      toXml({ values: { '95th percentile': 1, 'ns:key': 2, '<x>': 3, ok_key: 4 } }),
      DECL +
        '<values_response><values>' +
        '<_95th_percentile key="95th percentile">1</_95th_percentile>' +
        '<ns_key key="ns:key">2</ns_key>' +
        '<_x_ key="&lt;x&gt;">3</_x_>' +
        '<ok_key>4</ok_key>' +
        '</values></values_response>',
    );
  });

  it('has a root for a body with nothing but links, and for an empty body', () => {
    assert.equal(toXml({}), `${DECL}<response></response>`);
    assert.equal(toXml({ links: {} }), `${DECL}<response><links></links></response>`);
  });

  it('refuses values JSON cannot carry, and cycles', () => {
    assert.throws(() => toXml({ a: { b: 1n } }), /cannot render a bigint/);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    assert.throws(() => toXml({ a: cyclic }), /exceeds 64 levels/);
  });

  it('renders an error document on one line for regex readers', () => {
    const xml = xmlDocument('error', { title: 'Application with id 9 not found', messages: ['a', 'b'] });
    assert.equal(xml, `${DECL}<error><title>Application with id 9 not found</title><messages><message>a</message><message>b</message></messages></error>`);
    assert.equal(/<error>(.*?)<\/error>/.exec(xml)?.[1]?.includes('Application with id 9 not found'), true);
  });
});

describe('singularOf', () => {
  it('uses the table, then English rules, then item', () => {
    const cases: [string, string][] = [
      ['applications', 'application'],
      ['metrics_found', 'metric'],
      ['metrics_not_found', 'metric'],
      ['timeslices', 'timeslice'],
      ['application_instances', 'application_instance'],
      ['application_hosts', 'application_host'],
      ['servers', 'server'],
      ['key_transactions', 'key_transaction'],
      ['values', 'value'],
      ['alert_policies', 'alert_policy'],
      ['policy_ids', 'policy_id'],
      ['entities', 'entity'],
      ['addresses', 'address'],
      ['matches', 'match'],
      ['boxes', 'box'],
      ['class', 'item'],
      ['data', 'item'],
      ['s', 'item'],
    ];
    for (const [plural, singular] of cases) assert.equal(singularOf(plural), singular, plural);
  });
});
