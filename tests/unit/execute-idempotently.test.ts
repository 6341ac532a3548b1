import { randomUUID } from 'node:crypto';
import test from 'ava';
import { MemoryIdempotencyStore } from '../../adapters/memory/memory-idempotency-store.ts';
import { MemoryStore } from '../../adapters/memory/memory-store.ts';
import { MemoryUnitOfWork } from '../../adapters/memory/memory-unit-of-work.ts';
import type { StoredResponse } from '../../core/ports/idempotency-store.port.ts';
import { rememberResponse } from '../../adapters/http/idempotency.ts';
import { ExecuteIdempotently } from '../../core/use-cases/idempotency/execute-idempotently.use-case.ts';

function setup(options: { waitMs?: number } = {}) {
  const clock = { time: new Date('2030-01-01T00:00:00.000Z').getTime(), now: () => new Date(clock.time) };
  const store = new MemoryIdempotencyStore(new MemoryStore());
  const execute = new ExecuteIdempotently({
    store,
    uow: new MemoryUnitOfWork(),
    ids: { newId: () => randomUUID() },
    clock,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    remember: rememberResponse,
    ttlSeconds: 86_400,
    waitMs: options.waitMs ?? 2_000,
    pollMs: 5,
    abandonedAfterSeconds: 60,
  });
  let runs = 0;
  const counted = (response: StoredResponse) => async () => {
    runs++;
    return response;
  };
  return { clock, store, execute, counted, runs: () => runs, userId: randomUUID() };
}

const gate = () => {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
};

test('the first request runs; a repeat with the same fingerprint replays it without running', async (t) => {
  const { execute, counted, runs, userId } = setup();
  const first = await execute.execute({ userId, key: 'k1', fingerprint: 'A', run: counted({ status: 200, body: { coinBalance: 9 } }) });
  t.deepEqual(first, { ok: true, value: { response: { status: 200, body: { coinBalance: 9 } }, replayed: false } });
  const again = await execute.execute({ userId, key: 'k1', fingerprint: 'A', run: counted({ status: 200, body: { coinBalance: 8 } }) });
  t.deepEqual(again, { ok: true, value: { response: { status: 200, body: { coinBalance: 9 } }, replayed: true } });
  t.is(runs(), 1);
});

test('a 4xx outcome is remembered and replayed too', async (t) => {
  const { execute, counted, runs, userId } = setup();
  await execute.execute({ userId, key: 'k', fingerprint: 'A', run: counted({ status: 402, body: { message: 'short' } }) });
  const again = await execute.execute({ userId, key: 'k', fingerprint: 'A', run: counted({ status: 200, body: {} }) });
  t.like(again, { ok: true, value: { response: { status: 402 }, replayed: true } });
  t.is(runs(), 1);
});

test('the same key with another fingerprint is IDEMPOTENCY.KEY_REUSED and does not run', async (t) => {
  const { execute, counted, runs, userId } = setup();
  await execute.execute({ userId, key: 'k', fingerprint: 'A', run: counted({ status: 200, body: 1 }) });
  t.like(await execute.execute({ userId, key: 'k', fingerprint: 'B', run: counted({ status: 200, body: 2 }) }), { ok: false, code: 'IDEMPOTENCY.KEY_REUSED' });
  t.is(runs(), 1);
  t.like(await execute.execute({ userId: randomUUID(), key: 'k', fingerprint: 'B', run: counted({ status: 200, body: 2 }) }), { ok: true }, 'keys are per user');
});

test('a 5xx outcome or a throw frees the key so a retry runs', async (t) => {
  const { execute, counted, runs, store, userId } = setup();
  const failed = await execute.execute({ userId, key: 'k', fingerprint: 'A', run: counted({ status: 503, body: 'down' }) });
  t.like(failed, { ok: true, value: { response: { status: 503 }, replayed: false } });
  t.is(await store.find(userId, 'k'), null);
  await t.throwsAsync(execute.execute({ userId, key: 'k', fingerprint: 'A', run: async () => Promise.reject(new Error('boom')) }), { message: 'boom' });
  t.is(await store.find(userId, 'k'), null);
  t.like(await execute.execute({ userId, key: 'k', fingerprint: 'A', run: counted({ status: 200, body: 'ok' }) }), { ok: true, value: { replayed: false } });
  t.is(runs(), 2);
});

test('a concurrent repeat waits for the first request and replays its response', async (t) => {
  const { execute, userId } = setup();
  const first = gate();
  let runs = 0;
  const slow = async () => {
    runs++;
    await first.opened;
    return { status: 200, body: 'charged once' };
  };
  const a = execute.execute({ userId, key: 'k', fingerprint: 'A', run: slow });
  const b = execute.execute({ userId, key: 'k', fingerprint: 'A', run: slow });
  await new Promise((resolve) => setTimeout(resolve, 30));
  first.open();
  const results = await Promise.all([a, b]);
  t.is(runs, 1);
  t.deepEqual(
    results.map((r) => (r.ok ? [r.value.response.body, r.value.replayed] : r.code)),
    [['charged once', false], ['charged once', true]],
  );
});

test('when the first request fails while a repeat waits, the repeat runs it instead', async (t) => {
  const { execute, userId } = setup();
  const first = gate();
  const a = execute.execute({
    userId,
    key: 'k',
    fingerprint: 'A',
    run: async () => {
      await first.opened;
      throw new Error('first attempt crashed');
    },
  });
  const b = execute.execute({ userId, key: 'k', fingerprint: 'A', run: async () => ({ status: 200, body: 'second try' }) });
  await new Promise((resolve) => setTimeout(resolve, 20));
  first.open();
  await t.throwsAsync(a, { message: 'first attempt crashed' });
  t.like(await b, { ok: true, value: { response: { body: 'second try' }, replayed: false } });
});

test('a repeat that waited too long gets IDEMPOTENCY.IN_PROGRESS', async (t) => {
  const { execute, userId } = setup({ waitMs: 40 });
  const first = gate();
  const a = execute.execute({ userId, key: 'k', fingerprint: 'A', run: () => first.opened.then(() => ({ status: 200, body: 1 })) });
  t.like(await execute.execute({ userId, key: 'k', fingerprint: 'A', run: async () => ({ status: 200, body: 2 }) }), { ok: false, code: 'IDEMPOTENCY.IN_PROGRESS' });
  first.open();
  t.like(await a, { ok: true, value: { response: { body: 1 } } });
});

test('an abandoned claim (pending past the limit) is taken over; a late completion by the old holder is refused', async (t) => {
  const { execute, store, clock, userId } = setup();
  await store.claim({ userId, key: 'k', fingerprint: 'A', token: 'dead-process', claimedAt: clock.now(), expiresAt: new Date(clock.time + 86_400_000) });
  clock.time += 61_000;
  t.like(await execute.execute({ userId, key: 'k', fingerprint: 'A', run: async () => ({ status: 200, body: 'retried' }) }), {
    ok: true,
    value: { response: { body: 'retried' }, replayed: false },
  });
  t.false(await store.complete({ userId, key: 'k', token: 'dead-process' }, { status: 200, body: 'late' }, clock.now()));
  t.like(await store.find(userId, 'k'), { response: { body: 'retried' } });
});

test('after 24 h a key starts afresh, even with another body', async (t) => {
  const { execute, counted, runs, clock, userId } = setup();
  await execute.execute({ userId, key: 'k', fingerprint: 'A', run: counted({ status: 200, body: 'day one' }) });
  clock.time += 86_400_000 - 1;
  t.like(await execute.execute({ userId, key: 'k', fingerprint: 'A', run: counted({ status: 200, body: 'x' }) }), { ok: true, value: { replayed: true } });
  clock.time += 1;
  t.like(await execute.execute({ userId, key: 'k', fingerprint: 'B', run: counted({ status: 200, body: 'day two' }) }), {
    ok: true,
    value: { response: { body: 'day two' }, replayed: false },
  });
  t.is(runs(), 2);
});

test('a key must be 1 to 128 characters', async (t) => {
  const { execute, counted, runs, userId } = setup();
  for (const key of ['', 'k'.repeat(129)]) {
    t.deepEqual(await execute.execute({ userId, key, fingerprint: 'A', run: counted({ status: 200, body: 1 }) }), {
      ok: false,
      code: 'VALIDATION.FAILED',
      message: 'Validation failed',
      details: [{ field: 'Idempotency-Key', message: 'must be 1 to 128 characters' }],
    });
  }
  t.is(runs(), 0);
});
