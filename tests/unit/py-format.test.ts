import test from 'ava';
import { PyException, pyBool, pyEquals, pyFloat, pyFloatRepr, pyInt, pyRepr, pyRound, pyStr, pyTypeName } from '../../adapters/builtin-engine/py-format.ts';

// Every expected value below is what CPython 3.11 prints for the same input.

const pyError = (fn: () => unknown): { type: string; message: string } => {
  try {
    fn();
  } catch (ex) {
    if (ex instanceof PyException) return { type: ex.pyType, message: ex.message };
    throw ex;
  }
  throw new Error('no exception');
};

// Pins: min/max errors and PreviewAny print floats the way ComfyUI (Python's repr) does, so a client comparing messages sees the same text.
test('pyFloatRepr prints floats as Python repr does', (t) => {
  t.is(pyFloatRepr(NaN), 'nan');
  t.is(pyFloatRepr(Infinity), 'inf');
  t.is(pyFloatRepr(-Infinity), '-inf');
  t.is(pyFloatRepr(0), '0.0');
  t.is(pyFloatRepr(-0), '-0.0');
  t.is(pyFloatRepr(2.5), '2.5');
  t.is(pyFloatRepr(20), '20.0');
  t.is(pyFloatRepr(0.0001), '0.0001');
  t.is(pyFloatRepr(1e-5), '1e-05');
  t.is(pyFloatRepr(-1.5e-7), '-1.5e-07');
  t.is(pyFloatRepr(123456789012345.6), '123456789012345.6');
  t.is(pyFloatRepr(1e15), '1000000000000000.0');
  t.is(pyFloatRepr(1e16), '1e+16');
  t.is(pyFloatRepr(1.5e16), '1.5e+16');
  t.is(pyFloatRepr(1e22), '1e+22');
  t.is(pyFloatRepr(1.7976931348623157e308), '1.7976931348623157e+308');
});

// Pins: value_not_in_list and conversion errors quote the user's text as Python does, escapes included.
test('pyRepr quotes strings and prints values as Python repr does', (t) => {
  t.is(pyRepr('abc'), "'abc'");
  t.is(pyRepr("it's"), `"it's"`);
  t.is(pyRepr('a"b'), `'a"b'`);
  t.is(pyRepr(`both ' and "`), `'both \\' and "'`);
  t.is(pyRepr('tab\there\nnl\r\\'), "'tab\\there\\nnl\\r\\\\'");
  t.is(pyRepr('\x00\x1f\x7f\x85\xa0\u200b\u2028 é'), "'\\x00\\x1f\\x7f\\x85\\xa0\\u200b\\u2028 é'");
  t.is(pyRepr('\u{1F600}\u{E0001}'), "'\u{1F600}\\U000e0001'");
  t.is(pyRepr(null), 'None');
  t.is(pyRepr(undefined), 'None');
  t.is(pyRepr(true), 'True');
  t.is(pyRepr(false), 'False');
  t.is(pyRepr(3), '3');
  t.is(pyRepr(0.5), '0.5');
  t.is(pyRepr(1e-5), '1e-05');
  t.is(pyRepr([0.5, -2.5e-7]), '[0.5, -2.5e-07]');
  t.is(pyRepr(['a', 1, null, [false]]), "['a', 1, None, [False]]");
  t.is(pyRepr({ a: 1, "b'": ['x'] }), `{'a': 1, "b'": ['x']}`);
  t.is(pyStr('plain'), 'plain');
  t.is(pyStr(2.5), '2.5');
  t.is(pyStr(null), 'None');
});

test('pyTypeName names JSON values by their Python type', (t) => {
  t.deepEqual([null, undefined, 's', true, 1, 1.5, [], {}].map(pyTypeName), ['NoneType', 'NoneType', 'str', 'bool', 'int', 'float', 'list', 'dict']);
});

// Pins: an INT input given as text or float converts as int() would, and fails with int()'s own message otherwise.
test('pyInt converts and fails as int() does', (t) => {
  t.is(pyInt(true), 1);
  t.is(pyInt(false), 0);
  t.is(pyInt(3.7), 3);
  t.is(pyInt(-3.7), -3);
  t.is(pyInt(' 12 '), 12);
  t.is(pyInt('1_000'), 1000);
  t.is(pyInt('+5'), 5);
  t.deepEqual(pyError(() => pyInt(NaN)), { type: 'ValueError', message: 'cannot convert float NaN to integer' });
  t.deepEqual(pyError(() => pyInt(Infinity)), { type: 'OverflowError', message: 'cannot convert float infinity to integer' });
  t.deepEqual(pyError(() => pyInt(-Infinity)), { type: 'OverflowError', message: 'cannot convert float infinity to integer' });
  for (const bad of ['1__0', '_1', '1_', '12.0', '', ' ']) {
    t.deepEqual(pyError(() => pyInt(bad)), { type: 'ValueError', message: `invalid literal for int() with base 10: ${pyRepr(bad)}` }, bad);
  }
  t.deepEqual(pyError(() => pyInt(null)), { type: 'TypeError', message: "int() argument must be a string, a bytes-like object or a real number, not 'NoneType'" });
  t.deepEqual(pyError(() => pyInt([1])), { type: 'TypeError', message: "int() argument must be a string, a bytes-like object or a real number, not 'list'" });
});

// Pins: a FLOAT input given as text converts as float() would; Python's literal grammar decides what is refused.
test('pyFloat converts and fails as float() does', (t) => {
  t.is(pyFloat(true), 1);
  t.is(pyFloat(false), 0);
  t.is(pyFloat(0.25), 0.25);
  t.is(pyFloat('1e5'), 100000);
  t.is(pyFloat('1E5'), 100000);
  t.is(pyFloat('.5'), 0.5);
  t.is(pyFloat('5.'), 5);
  t.is(pyFloat(' 2.5 '), 2.5);
  t.is(pyFloat('1_0.5'), 10.5);
  t.is(pyFloat('1e1_0'), 1e10);
  t.is(pyFloat('-3'), -3);
  t.is(pyFloat('inf'), Infinity);
  t.is(pyFloat('+Infinity'), Infinity);
  t.is(pyFloat('-Infinity'), -Infinity);
  t.true(Number.isNaN(pyFloat('NaN')));
  t.true(Number.isNaN(pyFloat('+nan')));
  for (const bad of ['e5', '.', '1._5', '1e', '', 'abc', '0x10', '1__0', '1.5.2']) {
    t.deepEqual(pyError(() => pyFloat(bad)), { type: 'ValueError', message: `could not convert string to float: ${pyRepr(bad)}` }, bad);
  }
  t.deepEqual(pyError(() => pyFloat(null)), { type: 'TypeError', message: "float() argument must be a string or a real number, not 'NoneType'" });
  t.deepEqual(pyError(() => pyFloat({})), { type: 'TypeError', message: "float() argument must be a string or a real number, not 'dict'" });
});

// Pins: a BOOLEAN input is Python truthiness of what was sent ("false" is True, 0 and "" are False).
test('pyBool is Python truthiness', (t) => {
  t.deepEqual(
    [null, undefined, '', 'false', 0, 2, NaN, true, false, [], [0], {}, { a: 0 }].map(pyBool),
    [false, false, false, true, false, true, true, true, false, false, true, false, true],
  );
});

// Pins: ImageScale's center crop and the transform nodes round like Python's round() (half to even), so pixels match ComfyUI.
test('pyRound rounds half to even as round() does', (t) => {
  t.deepEqual([2.5, 3.5, -2.5, -3.5, 0.5, 1.5, 2.4, 2.6, -2.6, 7].map(pyRound), [2, 4, -2, -4, 0, 2, 2, 3, -3, 7]);
});

// Pins: a combo value matches an option when Python's == says so (1 == True, lists and dicts by value, never "1" == 1).
test('pyEquals is Python ==', (t) => {
  t.true(pyEquals(1, true));
  t.true(pyEquals(0, false));
  t.true(pyEquals(1.0, 1));
  t.false(pyEquals('1', 1));
  t.false(pyEquals(2, true));
  t.true(pyEquals('a', 'a'));
  t.false(pyEquals('a', 'b'));
  t.true(pyEquals(null, null));
  t.false(pyEquals(null, 0));
  t.false(pyEquals(null, 'None'));
  t.true(pyEquals([1, 'a'], [true, 'a']));
  t.false(pyEquals([1], [1, 1]));
  t.false(pyEquals([1], ['1']));
  t.true(pyEquals({ a: 1, b: [2] }, { b: [2], a: true }));
  t.false(pyEquals({ a: 1 }, { a: 1, b: 2 }));
  t.false(pyEquals({ a: 1, b: 2 }, { a: 1, c: 2 }));
  t.false(pyEquals(JSON.parse('{"__proto__": {}}'), { x: 1 }), 'a key is looked up among the own keys only');
  t.false(pyEquals({ a: 1 }, { a: 2 }));
  t.false(pyEquals([], {}));
  t.false(pyEquals({ 0: 'a' }, ['a']));
  t.false(pyEquals('1', ['1']));
});
