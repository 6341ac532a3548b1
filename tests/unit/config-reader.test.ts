import test from 'ava';
import { Reader } from '../../bootstrap/config/reader.ts';

// Each reader method, on its own: what it accepts, what it refuses and the problem it records (every section of the
// configuration is built from these).

test('raw and string: a value is trimmed; an empty or blank one reads as unset', (t) => {
  const r = new Reader({ A: '  x  ', B: '', C: '   ' });
  t.is(r.raw('A'), 'x');
  t.is(r.raw('B'), undefined);
  t.is(r.raw('C'), undefined);
  t.is(r.string('C', 'fallback'), 'fallback');
  t.is(r.string('A', 'fallback'), 'x');
  t.deepEqual(r.problems, []);
});

test('required: an unset value is a problem naming why it is needed', (t) => {
  const r = new Reader({ SET: 'v', BLANK: ' ' });
  t.is(r.required('SET', 'always'), 'v');
  t.is(r.required('BLANK', 'when X=y'), '');
  t.deepEqual(r.problems, ['BLANK is required when X=y']);
});

test('int: whole numbers from min to max inclusive; anything else keeps the fallback and is a problem', (t) => {
  const r = new Reader({ LOW: '1', HIGH: '10', BELOW: '0', ABOVE: '11', FRACTION: '2.5', WORD: 'ten' });
  t.is(r.int('LOW', 5, 1, 10), 1);
  t.is(r.int('HIGH', 5, 1, 10), 10);
  t.is(r.int('UNSET', 5, 1, 10), 5);
  t.deepEqual(r.problems, []);
  for (const name of ['BELOW', 'ABOVE', 'FRACTION', 'WORD']) t.is(r.int(name, 5, 1, 10), 5, name);
  t.deepEqual(r.problems, [
    'BELOW must be an integer from 1 to 10 (got "0")',
    'ABOVE must be an integer from 1 to 10 (got "11")',
    'FRACTION must be an integer from 1 to 10 (got "2.5")',
    'WORD must be an integer from 1 to 10 (got "ten")',
  ]);
});

test('bool: true/1/yes and false/0/no in any case; anything else keeps the fallback and is a problem', (t) => {
  const r = new Reader({ A: 'TRUE', B: '1', C: 'yes', D: 'False', E: '0', F: 'no', G: 'maybe' });
  t.deepEqual(['A', 'B', 'C'].map((name) => r.bool(name, false)), [true, true, true]);
  t.deepEqual(['D', 'E', 'F'].map((name) => r.bool(name, true)), [false, false, false]);
  t.is(r.bool('UNSET', true), true);
  t.is(r.bool('G', true), true);
  t.deepEqual(r.problems, ['G must be true or false (got "maybe")']);
});

test('oneOf: only the listed values, exactly', (t) => {
  const r = new Reader({ A: 'rabbitmq', B: 'RabbitMQ' });
  t.is(r.oneOf('A', 'database', ['database', 'rabbitmq'] as const), 'rabbitmq');
  t.is(r.oneOf('B', 'database', ['database', 'rabbitmq'] as const), 'database');
  t.is(r.oneOf('UNSET', 'database', ['database', 'rabbitmq'] as const), 'database');
  t.deepEqual(r.problems, ['B must be one of database, rabbitmq (got "RabbitMQ")']);
});

test('list: comma-separated, items trimmed, empty items dropped', (t) => {
  const r = new Reader({ A: ' a, b ,,c , ', B: ' , ' });
  t.deepEqual(r.list('A'), ['a', 'b', 'c']);
  t.deepEqual(r.list('B'), []);
  t.deepEqual(r.list('UNSET'), []);
});

test('duration: bare seconds or a unit (ms, s, m, h, d), whole seconds, at least one', (t) => {
  const r = new Reader({ BARE: '900', S: '30s', M: '15m', H: '12h', D: '7d', MS: '1500ms', SPACED: '2 m', SUB: '999ms', ZERO: '0', BAD: '15 minutes', NEG: '-5' });
  t.deepEqual(['BARE', 'S', 'M', 'H', 'D', 'MS', 'SPACED'].map((name) => r.duration(name, 1)), [900, 30, 900, 43_200, 604_800, 1, 120]);
  t.is(r.duration('UNSET', 60), 60);
  t.deepEqual(r.problems, []);
  t.deepEqual(['SUB', 'ZERO', 'BAD', 'NEG'].map((name) => r.duration(name, 60)), [60, 60, 60, 60]);
  t.deepEqual(r.problems, [
    'SUB must be at least one second',
    'ZERO must be at least one second',
    'BAD must be a duration such as 900, 15m, 12h or 7d (got "15 minutes")',
    'NEG must be a duration such as 900, 15m, 12h or 7d (got "-5")',
  ]);
});

test('url: a parsable URL with one of the given protocols', (t) => {
  const r = new Reader({});
  r.url('OK', 'https://example.com/x', ['https:', 'http:']);
  t.deepEqual(r.problems, []);
  r.url('PROTOCOL', 'ftp://example.com', ['https:', 'http:']);
  r.url('BROKEN', 'example.com', ['https:']);
  t.deepEqual(r.problems, ['PROTOCOL must use https: or http: (got "ftp:")', 'BROKEN is not a valid URL']);
});
