import test from 'ava';
import { canonicalJson, JSON_DEPTH_MAX, jsonDepth } from '../../adapters/http/json-shape.ts';

const nested = (levels: number): unknown => JSON.parse('['.repeat(levels) + ']'.repeat(levels));

test('canonicalJson sorts keys at every level and matches JSON.stringify otherwise', (t) => {
  t.is(canonicalJson({ b: 2, a: [1, { d: null, c: 'x' }, undefined], u: undefined }), '{"a":[1,{"c":"x","d":null},null],"b":2}');
  t.is(canonicalJson({ b: 2, a: 1 }), canonicalJson({ a: 1, b: 2 }));
  t.is(canonicalJson(undefined), 'null');
  t.is(canonicalJson([]), '[]');
  t.is(canonicalJson({}), '{}');
  t.is(canonicalJson({ 'q"k': ['\u2028', 1.5, true] }), '{"q\\"k":["\u2028",1.5,true]}');
  const plain = { z: [1, [2, [3, { y: 'a', x: 'b' }]]], a: 'end' };
  t.deepEqual(JSON.parse(canonicalJson(plain)), plain);
});

test('canonicalJson and jsonDepth walk 100,000 levels without overflowing the stack', (t) => {
  const deep = nested(100_000);
  t.is(canonicalJson(deep).length, 200_000);
  t.is(jsonDepth(deep), Infinity);
  t.is(jsonDepth(deep, 1_000_000), 100_000);
});

test('jsonDepth counts containers, not scalars, and stops at the limit', (t) => {
  t.is(jsonDepth('text'), 0);
  t.is(jsonDepth({}), 1);
  t.is(jsonDepth({ a: [1, { b: 2 }] }), 3);
  // The deepest branch counts wherever it is, not the last one walked.
  t.is(jsonDepth([[], [[]]]), 3);
  t.is(jsonDepth([[[]], []]), 3);
  t.is(jsonDepth(nested(JSON_DEPTH_MAX)), JSON_DEPTH_MAX);
  t.is(jsonDepth(nested(JSON_DEPTH_MAX + 1)), Infinity);
});
