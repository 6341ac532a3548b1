import test from 'ava';
import { judge } from '../mutation/mutation.ts';

// The harness counts a mutation as caught only when a test failed an assertion; these are ava's own lines.
test('a failed assertion is a catch', (t) => {
  const out = '  ✔ a › passes\n  ✘ [fail]: a › fails Difference\n\n  1 test failed\n';
  t.deepEqual(judge({ status: 1, output: out, killed: false }), { verdict: 'caught', red: ['✘ [fail]: a › fails Difference'] });
});

test('a green run is a survivor', (t) => {
  t.is(judge({ status: 0, output: '  ✔ a › passes\n\n  1 test passed\n', killed: false }).verdict, 'survived');
});

test('ava timing out is not a catch', (t) => {
  const out = '  ✔ a › passes\n\n  ✘ Timed out while running tests\n\n  1 tests were pending in tests/b.test.ts\n';
  t.is(judge({ status: 1, output: out, killed: false }).verdict, 'timed-out');
});

test('a file that cannot load (a broken mutant, a missing server at import) is not a catch', (t) => {
  const out = '  Uncaught exception in tests/c.test.ts\n\n  ✘ tests/c.test.ts exited with a non-zero exit code: 1\n';
  t.is(judge({ status: 1, output: out, killed: false }).verdict, 'crashed');
});

test('a run the harness had to kill is not a catch, even with failures printed before', (t) => {
  t.is(judge({ status: null, output: '  ✘ [fail]: a › fails\n', killed: true }).verdict, 'timed-out');
});
