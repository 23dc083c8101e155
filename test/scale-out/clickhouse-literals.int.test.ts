import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clickhouseDialect, literal, numberLiteral, stringLiteral } from '../../src/store/clickhouse/clickhouse-dialect.js';
import { Rows, TIMESLICES } from '../../src/store/append-tables.js';
import { clickhouseMissing, startClickHouse, type ClickHouseServer } from '../helpers/clickhouse.js';
import { startTestServer } from '../helpers/test-server.js';

/**
 * The ClickHouse dialect writes values as literals (18.16 has no query parameters), so every value
 * must come back from ClickHouse exactly as it went in, and no text may end a literal early.
 */
const STRINGS = [
  '', 'plain', "it's", "'; DROP TABLE timeslices; --", 'back\\slash', 'ends with a backslash \\', '\\\'', 'quote " double',
  'line\nbreak\ttab\rreturn', '\u0000nul\u0001\u001f', 'ünïcødé ✓ 日本', '🙂 astral', '%_ like wildcards', '{p:UInt32}', '?', '$1',
];
const NUMBERS = [0, 1, -1, 42, -42, 0.1, -0.25, 1e-7, 123456789.125, 2 ** 53 - 1, -(2 ** 53), 1e21, 1.7976931348623157e308, 5e-324, 1 / 3, 4.657622556731838e+197, 6.970320310595191e-152, -2.771708170652978e+267, 2.252385265107948e+166];

describe('ClickHouse literals: what goes in comes back', { skip: clickhouseMissing() }, () => {
  let clickhouse: ClickHouseServer;
  before(async () => { clickhouse = await startClickHouse(); });
  after(async () => { await clickhouse?.stop(); });
  const select = async (sqls: readonly string[]) => {
    const response = await fetch(`${clickhouse.url}/?output_format_json_quote_64bit_integers=0`, { method: 'POST', body: `SELECT ${sqls.map((s, i) => `${s} AS c${i}`).join(', ')} FORMAT JSONCompact` });
    const text = await response.text();
    assert.equal(response.status, 200, text);
    return (JSON.parse(text) as { data: unknown[][] }).data[0]!;
  };

  it('strings, whatever they hold', async () => {
    assert.deepEqual(await select(STRINGS.map(stringLiteral)), STRINGS);
  });

  it('numbers, to the last bit', async () => {
    const back = (await select(NUMBERS.map(numberLiteral))).map(Number);
    assert.deepEqual(back, NUMBERS);
  });

  it('timestamps as epoch milliseconds, booleans as 1/0, fraction lists as Float64 arrays', async () => {
    assert.deepEqual(await select([literal({ timestampMs: 1754899980123 }), literal(true), literal(false), literal({ doubles: [0.5, 1, 0.95] })]), [1754899980123, 1, 0, [0.5, 1, 0.95]]);
  });

  it('the batch writer stores doubles bit for bit (18.16 parses some decimal texts to a neighbour)', async () => {
    const ts = await startTestServer({ TIMESLICE_STORE: `clickhouse://127.0.0.1:${clickhouse.httpPort}/exact` });
    try {
      const awkward = [4.657622556731838e+197, 6.970320310595191e-152, -2.771708170652978e+267, 0.1, 1 / 3, 5e-324, 1.7976931348623157e308, 0.30000000000000004];
      const rows = new Rows(TIMESLICES);
      awkward.forEach((v, i) => rows.push(1, 1, 1, 1, i, 0, 1754899980000, v, v, v, v, v, v));
      await ts.server.writer.write([rows]);
      const hex = (v: number) => { const b = Buffer.alloc(8); b.writeDoubleLE(v); return b.toString('hex').toUpperCase(); };
      const stored = (await clickhouse.query('SELECT hex(reinterpretAsString(total)) FROM exact.timeslices ORDER BY metric_id FORMAT TSV')).trim().split('\n');
      // reinterpretAsString drops trailing zero bytes.
      assert.deepEqual(stored, awkward.map((v) => hex(v).replace(/(00)+$/, '')));
    } finally {
      await ts.stop();
    }
  });

  it('identifiers are quoted, a quote inside one escaped', async () => {
    assert.equal(clickhouseDialect.quoteIdentifier('a"b\\c'), '"a\\"b\\\\c"');
    assert.deepEqual(await select([`1 AS ${clickhouseDialect.quoteIdentifier('we"ird')}, ${clickhouseDialect.quoteIdentifier('we"ird')} + 1`]), [1, 2]);
  });

  it('LIKE patterns keep % as the only wildcard: _ and \\ are literal', async () => {
    const like = (text: string, pattern: string) => clickhouseDialect.like(stringLiteral(text), stringLiteral(clickhouseDialect.escapeLike(pattern)));
    assert.deepEqual(await select([like('a_b', 'a_b'), like('axb', 'a_b'), like('A\\B', 'a\\b'), like('Äbc', 'ä%'), like('abc', 'A%C')]), [1, 0, 1, 1, 1]);
  });
});
