import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ParamError, RestParams, parseFormBody } from './rest-params.js';

function paramError(parameter: string, message: string) {
  return (e: unknown) => {
    assert.ok(e instanceof ParamError, String(e));
    assert.equal(e.parameter, parameter);
    assert.equal(e.message, message);
    return true;
  };
}

test('a single-valued parameter comes from the query string before the body', () => {
  const p = RestParams.from({ from: '2024-03-05T14:00:00Z' }, { from: '2024-03-05T13:00:00Z', to: '2024-03-05T15:00:00Z' });
  assert.equal(p.one('from'), '2024-03-05T14:00:00Z');
  assert.equal(p.one('to'), '2024-03-05T15:00:00Z');
  assert.equal(p.one('period'), undefined);
});

test('within one source the last of a repeated key wins', () => {
  const p = RestParams.from({ summarize: ['false', 'true'] }, { period: ['60', '120'] });
  assert.equal(p.one('summarize'), 'true');
  assert.equal(p.one('period'), '120');
});

test('an empty value counts as absent', () => {
  const p = RestParams.from({ to: '', from: ['2024-03-05', ''] }, { to: '2024-03-05T15:00:00Z', 'names[]': ['', 'A'] });
  assert.equal(p.one('to'), '2024-03-05T15:00:00Z');
  assert.equal(p.one('from'), '2024-03-05');
  assert.deepEqual(p.all('names'), ['A']);
  assert.equal(RestParams.from({ summarize: '' }, undefined).bool('summarize'), undefined);
  assert.equal(RestParams.from({ to: '' }, undefined).has('to'), false);
});

test('repeated parameters: union, query string first, each value once in first-seen order', () => {
  const p = RestParams.from({ 'names[]': ['B', 'A', 'B'] }, { 'names[]': ['C', 'A'], names: 'D' });
  assert.deepEqual(p.all('names'), ['B', 'A', 'C', 'D']);
  assert.deepEqual(p.all('names[]'), ['B', 'A', 'C', 'D'], 'the brackets may be given');
  assert.deepEqual(p.all('values'), []);
});

test('a singular alias is read only when the caller asks for it', () => {
  const p = RestParams.from({ name: 'Mobile/Crash/All' }, { 'names[]': 'HttpDispatcher', name: 'Apdex' });
  assert.deepEqual(p.all('names'), ['HttpDispatcher']);
  assert.deepEqual(p.allOf('names', 'name'), ['Mobile/Crash/All', 'HttpDispatcher', 'Apdex']);
});

test('keys match exactly', () => {
  const p = RestParams.from({ 'filter[name]': 'shop', filter: 'other', 'from[]': '2024-03-05' }, undefined);
  assert.equal(p.one('filter[name]'), 'shop');
  assert.equal(p.one('filter'), 'other');
  assert.equal(p.one('filter[ids]'), undefined);
  assert.equal(p.one('from'), undefined);
  assert.equal(p.has('filter[name]'), true);
  assert.equal(p.has('FILTER[NAME]'), false);
});

test('only strings are parameters; other sources and values are ignored', () => {
  for (const body of [undefined, null, 'names[]=A', ['A'], 42]) {
    assert.deepEqual(RestParams.from(body, body).all('names'), []);
  }
  const p = RestParams.from({}, { summarize: true, period: 60, 'names[]': ['A', 7, null, { x: 1 }], filter: { name: 'x' } });
  assert.equal(p.one('summarize'), undefined);
  assert.equal(p.one('period'), undefined);
  assert.deepEqual(p.all('names'), ['A']);
  assert.equal(p.one('filter'), undefined);
});

test('a null-prototype record with a __proto__ key is read like any other', () => {
  const query = Object.create(null) as Record<string, string>;
  query['__proto__'] = 'x';
  query['constructor'] = 'y';
  const p = RestParams.from(query, undefined);
  assert.equal(p.one('__proto__'), 'x');
  assert.equal(p.one('constructor'), 'y');
  assert.equal(p.one('toString'), undefined);
});

test("bool: Rails' spellings in any case", () => {
  const p = RestParams.from({ a: 'TRUE', b: 'False', c: '1', d: '0', e: 'maybe', f: 'true ', g: 'Yes', h: 'off', i: 't', j: 'F' }, undefined);
  assert.deepEqual(['g', 'h', 'i', 'j'].map((k) => p.bool(k)), [true, false, true, false]);
  assert.equal(p.bool('a'), true);
  assert.equal(p.bool('b'), false);
  assert.equal(p.bool('c'), true);
  assert.equal(p.bool('d'), false);
  assert.equal(p.bool('missing'), undefined);
  assert.throws(() => p.bool('e'), paramError('e', 'Invalid e: expected true or false'));
  assert.throws(() => p.bool('f'), paramError('f', 'Invalid f: expected true or false'));
});

test('int: positive whole numbers only', () => {
  const p = RestParams.from({ page: '2', padded: '007', zero: '0', negative: '-1', decimal: '1.5', exp: '1e3', huge: '9007199254740993', word: 'two' }, undefined);
  assert.equal(p.int('page'), 2);
  assert.equal(p.int('padded'), 7);
  assert.equal(p.int('missing'), undefined);
  for (const name of ['zero', 'negative', 'decimal', 'exp', 'huge', 'word']) {
    assert.throws(() => p.int(name), paramError(name, `Invalid ${name}: expected a positive whole number`));
  }
});

test('form bodies decode like query strings: + is a space, percent-escapes, repeated keys as arrays', () => {
  const body = parseFormBody('names%5B%5D=A&names[]=B+C&from=2024-03-05T14:00:00%2B08:00&to=2024-03-05T15:00:00+08:00&flag&empty=&filter[name]=a%26b&&');
  assert.equal(Object.getPrototypeOf(body), null);
  assert.deepEqual({ ...body }, {
    'names[]': ['A', 'B C'],
    from: '2024-03-05T14:00:00+08:00',
    to: '2024-03-05T15:00:00 08:00',
    flag: '',
    empty: '',
    'filter[name]': 'a&b',
  });
  assert.deepEqual({ ...parseFormBody('') }, {});
  assert.deepEqual({ ...parseFormBody('a=%E2%82%AC&b=%ZZ') }, { a: '€', b: '%ZZ' });
});
