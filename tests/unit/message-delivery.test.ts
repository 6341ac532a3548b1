import test from 'ava';
import {
  backoffSeconds,
  describeError,
  settlementOf,
  traceCarrierOf,
  traceFields,
  validateConsumeOptions,
} from '../../core/domain/message-delivery.ts';
import type { ConsumeOptions } from '../../core/ports/queue.port.ts';

const POLICY = { initialSeconds: 1, maxSeconds: 60 };

test('backoff: 1 s after the first failed attempt, doubling after each further one, capped', (t) => {
  t.deepEqual([1, 2, 3, 4, 5, 6, 7, 8].map((attempt) => backoffSeconds(attempt, POLICY)), [1, 2, 4, 8, 16, 32, 60, 60]);
  t.is(backoffSeconds(0, POLICY), 1, 'an attempt 0 waits like the first');
});

test('backoff: a very high attempt still gives a number (the cap, or 0 with no initial delay)', (t) => {
  t.is(backoffSeconds(5000, POLICY), 60);
  t.is(backoffSeconds(5000, { initialSeconds: 0, maxSeconds: 60 }), 0);
});

test('a handler that throws is retried after the backoff, and goes dead on its last allowed attempt only', (t) => {
  const error = { error: new Error('engine unreachable') };
  t.deepEqual(settlementOf(error, 1, 3, POLICY), { kind: 'delay', seconds: 1 });
  t.deepEqual(settlementOf(error, 2, 3, POLICY), { kind: 'delay', seconds: 2 });
  t.deepEqual(settlementOf(error, 3, 3, POLICY), { kind: 'dead', reason: 'handler failed on attempt 3 of 3: Error: engine unreachable' });
  t.is(settlementOf(error, 4, 3, POLICY).kind, 'dead');
});

test('a retry asked for on the last allowed attempt goes dead; before it, it waits the delay asked for (never negative)', (t) => {
  const retry = (delaySeconds: number) => ({ outcome: { action: 'retry' as const, delaySeconds } });
  t.deepEqual(settlementOf(retry(7), 2, 3), { kind: 'delay', seconds: 7 });
  t.deepEqual(settlementOf(retry(-5), 1, 3), { kind: 'delay', seconds: 0 });
  t.deepEqual(settlementOf(retry(7), 3, 3), { kind: 'dead', reason: 'retry requested on attempt 3 of 3' });
  t.deepEqual(settlementOf(retry(0), 1, 1), { kind: 'dead', reason: 'retry requested on attempt 1 of 1' });
});

test('ack deletes; an explicit dead keeps the handler\'s reason, on any attempt', (t) => {
  t.deepEqual(settlementOf({ outcome: { action: 'ack' } }, 3, 3), { kind: 'delete' });
  t.deepEqual(settlementOf({ outcome: { action: 'dead', reason: 'bad platform' } }, 1, 3), { kind: 'dead', reason: 'bad platform' });
});

test('an error is described with its name, and cut at 2000 characters', (t) => {
  t.is(describeError(new TypeError('boom')), 'TypeError: boom');
  t.is(describeError('plain'), 'plain');
  const long = describeError(new Error('x'.repeat(5000)));
  t.is(long.length, 2001);
  t.true(long.endsWith('…'));
});

test('consume options no queue can honour are refused', (t) => {
  const good: ConsumeOptions = { taskTypes: ['generation'], environment: 'local', concurrency: 2, maxAttempts: 3, visibilitySeconds: 0.5 };
  t.notThrows(() => validateConsumeOptions(good));
  t.throws(() => validateConsumeOptions({ ...good, taskTypes: [] }), { message: /at least one task type/ });
  for (const concurrency of [0, -1, 1.5, Number.NaN]) t.throws(() => validateConsumeOptions({ ...good, concurrency }), { message: /concurrency/ }, String(concurrency));
  for (const maxAttempts of [0, -1, 2.5, Number.NaN]) t.throws(() => validateConsumeOptions({ ...good, maxAttempts }), { message: /maxAttempts/ }, String(maxAttempts));
  for (const visibilitySeconds of [0, -1, Number.NaN]) t.throws(() => validateConsumeOptions({ ...good, visibilitySeconds }), { message: /visibilitySeconds/ }, String(visibilitySeconds));
});

test('a trace carrier needs a traceparent; empty or non-string fields are left out', (t) => {
  t.deepEqual(traceCarrierOf({ traceparent: '00-a-b-01', tracestate: 'k=v', other: 'x' }), { traceparent: '00-a-b-01', tracestate: 'k=v' });
  t.deepEqual(traceCarrierOf({ traceparent: '00-a-b-01', tracestate: '' }), { traceparent: '00-a-b-01' });
  t.is(traceCarrierOf({ tracestate: 'k=v' }), undefined, 'a tracestate alone is no trace');
  t.is(traceCarrierOf({ traceparent: '', tracestate: '' }), undefined);
  t.is(traceCarrierOf({ traceparent: 42 }), undefined);
});

test('trace fields are only the W3C fields the carrier has', (t) => {
  t.deepEqual(traceFields({ traceparent: '00-a-b-01' }), { traceparent: '00-a-b-01' });
  t.deepEqual(traceFields({ traceparent: '00-a-b-01', tracestate: 'k=v', baggage: 'x' }), { traceparent: '00-a-b-01', tracestate: 'k=v' });
  t.deepEqual(traceFields(undefined), {});
});
