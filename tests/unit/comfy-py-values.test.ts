import test from 'ava';
import { PyValueError, isPlainObject, pyFloat, pyIn, pyInt, pyIter, pyStr, pyTruthy } from '../../adapters/comfyui-protocol-server/py-values.ts';

// The protocol stand-in answers request values as ComfyUI's Python handlers do (comfyui-protocol.md): a client tested
// against it meets the same answers, and the same 500s, as against a real ComfyUI.

// Pins Python's int() of a query value (GET /history?max_items=...): spaces, a sign and digit underscores are taken;
// anything else raises (a 500), never a silent NaN.
test('pyInt reads what Python int() reads and refuses the rest', (t) => {
  t.is(pyInt('12'), 12);
  t.is(pyInt(' +7 '), 7);
  t.is(pyInt('-3'), -3);
  t.is(pyInt('1_000'), 1000);
  for (const bad of ['', 'two', '1.5', '_1', '1__0', '1_', '0x10']) t.throws(() => pyInt(bad), { instanceOf: PyValueError }, bad);
});

// Pins Python's float() of POST /prompt's explicit `number` priority.
test('pyFloat reads numbers, booleans and the strings Python float() reads, and refuses the rest', (t) => {
  t.is(pyFloat(2.5), 2.5);
  t.is(pyFloat(true), 1);
  t.is(pyFloat(false), 0);
  t.is(pyFloat(' 2.5 '), 2.5);
  t.is(pyFloat('1_0'), 10);
  t.is(pyFloat('5.'), 5);
  t.is(pyFloat('.5'), 0.5);
  t.is(pyFloat('1e3'), 1000);
  t.is(pyFloat('-7'), -7);
  t.is(pyFloat('inf'), Infinity);
  t.is(pyFloat('-Infinity'), -Infinity);
  t.true(Number.isNaN(pyFloat('nan')));
  t.is(pyFloat('1e1_0'), 1e10);
  // Underscores go only between digits, as in a Python literal.
  for (const bad of ['abc', '', '1.2.3', '_1', '1_', '1__0', '1._5', null, [1], { a: 1 }]) t.throws(() => pyFloat(bad), { instanceOf: PyValueError }, JSON.stringify(bad));
});

// Pins Python's str() of a client-supplied prompt_id.
test('pyStr prints None, True, False, strings and numbers as Python str() does', (t) => {
  t.is(pyStr(null), 'None');
  t.is(pyStr(undefined), 'None');
  t.is(pyStr(true), 'True');
  t.is(pyStr(false), 'False');
  t.is(pyStr('abc'), 'abc');
  t.is(pyStr(42), '42');
  t.is(pyStr(1.5), '1.5');
});

// Pins what counts as a JSON object (a Python dict): not a list, not null.
test('isPlainObject is true for objects only, not for lists or null', (t) => {
  t.true(isPlainObject({}));
  t.false(isPlainObject([]));
  t.false(isPlainObject(null));
  t.false(isPlainObject('x'));
});

// Pins Python truthiness of a JSON value (POST /queue {clear}, /free {free_memory}, /interrupt {prompt_id}, {front}).
test('pyTruthy follows Python: empty lists, dicts and strings, 0 and null are false', (t) => {
  for (const falsy of [[], {}, '', 0, null, false]) t.false(pyTruthy(falsy), JSON.stringify(falsy));
  for (const truthy of [[0], { a: 0 }, '0', 1, -1, true]) t.true(pyTruthy(truthy), JSON.stringify(truthy));
});

// Pins Python's `key in body`: a dict's keys, a list's items, a string's substrings; anything else raises TypeError (a 500).
test('pyIn follows Python: keys of a dict, items of a list, substrings of a string, TypeError otherwise', (t) => {
  t.true(pyIn('clear', { clear: false }));
  t.false(pyIn('clear', { other: 1 }));
  t.false(pyIn('toString', {}));
  t.true(pyIn('clear', ['clear']));
  t.false(pyIn('clear', [{ clear: true }]));
  t.true(pyIn('clear', 'unclear'));
  for (const bad of [null, 5, true]) t.throws(() => pyIn('clear', bad), { instanceOf: TypeError }, JSON.stringify(bad));
});

// Pins Python iteration of POST /queue's and /history's `delete`: list items, string characters, dict keys; TypeError otherwise.
test('pyIter follows Python: list items, string characters, dict keys, TypeError otherwise', (t) => {
  t.deepEqual(pyIter(['a', 1]), ['a', 1]);
  t.deepEqual(pyIter('ab'), ['a', 'b']);
  t.deepEqual(pyIter({ x: 1, y: 2 }), ['x', 'y']);
  for (const bad of [null, 5, true]) t.throws(() => pyIter(bad), { instanceOf: TypeError }, JSON.stringify(bad));
});
