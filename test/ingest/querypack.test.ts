import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { attributesOf, decodeQuerypack, QuerypackError, type QpNode } from '../../src/ingest/browser/querypack.js';
import { SAMPLES_DIR } from '../helpers/samples.js';

/** The lab's beacons: each bel.* body with its decoding by New Relic's own querypack decoder. */
const beacons = JSON.parse(readFileSync(join(SAMPLES_DIR, 'browser-beacons-1.322.0.json'), 'utf8')) as {
  samples: Record<string, { path: string; body?: unknown; decoded?: unknown }>;
};

/** A decoded node in the reference decoder's shape: fields flat, children and node fields by name. */
function referenceShape(node: QpNode): Record<string, unknown> {
  const out: Record<string, unknown> = { type: node.type };
  if (node.type === 'timing') {
    Object.assign(out, node.fields, { attributes: node.children.map(referenceShape) });
    return out;
  }
  if (node.type === 'interaction' || node.type === 'ajax') out.children = node.children.map(referenceShape);
  Object.assign(out, node.fields);
  for (const [name, child] of Object.entries(node.nodes)) out[name] = child === null ? null : referenceShape(child);
  return out;
}

const belSamples = Object.entries(beacons.samples).filter(([, s]) => typeof s.body === 'string' && s.body.startsWith('bel.'));

describe('querypack decoder over the captured beacons', () => {
  it('has bel.6 and bel.7 samples to check', () => {
    const schemas = new Set(belSamples.map(([, s]) => (s.body as string).split(';', 1)[0]));
    assert.deepEqual([...schemas].sort(), ['bel.6', 'bel.7']);
    assert.ok(belSamples.length >= 4);
  });

  for (const [name, sample] of belSamples) {
    it(`decodes ${name} as the reference decoder does`, () => {
      const { nodes } = decodeQuerypack(sample.body as string);
      const shaped = nodes.map(referenceShape);
      // The reference leaves interaction/ajax key order as the schema's; compare as data.
      assert.deepEqual(JSON.parse(JSON.stringify(shaped)), sample.decoded);
    });
  }

  it('reads attribute children into a map', () => {
    const { nodes } = decodeQuerypack("bel.6;e,'load,5e,4;5,'tier,'gold;6,'rtt,1.5;7,'ok;9,'nothing");
    assert.equal(nodes[0]!.fields.value, 194);
    assert.deepEqual(attributesOf(nodes[0]!.children), { tier: 'gold', rtt: 1.5, ok: true, nothing: null });
  });

  it('unescapes strings and reuses them by index', () => {
    const { nodes } = decodeQuerypack("bel.6;e,'a\\,b\\;c\\\\,1,1;5,0,'x");
    assert.equal(nodes[0]!.fields.name, 'a,b;c\\');
    assert.deepEqual(attributesOf(nodes[0]!.children), { 'a,b;c\\': 'x' });
  });

  const bad: [string, string, RegExp][] = [
    ['unknown schema', 'bel.9;e,1,1,0', /schema 'bel.9'/],
    ['not querypack', '{"err":[]}', /schema/],
    ['unknown node type', 'bel.7;z,1', /unknown node type z/],
    ['string index not yet defined', 'bel.6;e,3,1,0', /refers to string 3/],
    ['truncated: children missing', "bel.6;e,'fp,1,2;5,'k,'v", /empty node|node/],
    ['letters in a double', "bel.6;e,'fp,1,1;6,'k,abc", /not a number/],
    ['null in a non-nullable field', 'bel.6;e,!,1,0', /not nullable/],
    ['extra fields', "bel.6;e,'fp,1,0,5,6", /more fields/],
    ['enum index out of range', "bel.7;2,,1,1,,,'GET,5k,'h,'/p,,,9,'0,!!!", /not one of its 3 values/],
    ['escape at the end', "bel.6;e,'fp\\", /ends inside an escape/],
    ['absurd child count', "bel.6;e,'fp,1,zzzzzz", /claims/],
  ];
  for (const [label, body, message] of bad) {
    it(`refuses ${label}`, () => {
      assert.throws(() => decodeQuerypack(body), (e: unknown) => e instanceof QuerypackError && message.test(e.message));
    });
  }
});

describe('querypack decoder on arbitrary input', () => {
  it("throws nothing but QuerypackError, whatever the body", () => {
    // Bodies built from the format's own characters, so most get deep into the decoder.
    const token = fc.constantFrom('1', '2', '5', '6', '7', 'b', 'e', 'z', '0', '5k', '!', "'", "'x", ',', ';', '\\', '.', '-', '12.5', 'zzzzzzzzzzzzz', '');
    const body = fc.tuple(fc.constantFrom('bel.6;', 'bel.7;', 'bel.7', 'bel.8;', ''), fc.array(token, { maxLength: 60 })).map(([head, parts]) => head + parts.join(''));
    fc.assert(fc.property(body, (text) => {
      try {
        decodeQuerypack(text);
      } catch (error) {
        if (!(error instanceof QuerypackError)) throw error;
      }
    }), { numRuns: 3000, seed: 16 });
  });
});
