import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { Request, Response } from 'express';
import { MemoryStore } from '../../adapters/memory/memory-store.ts';
import { MemoryUnitOfWork } from '../../adapters/memory/memory-unit-of-work.ts';
import { IdempotentResponder, type CommitResponse } from '../../adapters/http/idempotency.ts';
import type { StoredResponse } from '../../core/ports/idempotency-store.port.ts';

interface Answer {
  status: number;
  body: unknown;
  replayed: boolean;
}

function setup(options: { waitMs?: number } = {}) {
  const clock = { time: new Date('2030-01-01T00:00:00.000Z').getTime(), now: () => new Date(clock.time) };
  const uow = new MemoryUnitOfWork(new MemoryStore());
  const store = uow.autocommit.idempotency;
  /** Every call the responder made on the store outside a transaction, by method. */
  const storeCalls: string[] = [];
  const responder = new IdempotentResponder({
    store: new Proxy(store, {
      get: (target, name, receiver) => {
        const value = Reflect.get(target, name, receiver) as unknown;
        return typeof value === 'function' ? (...args: unknown[]) => (storeCalls.push(String(name)), (value as (...a: unknown[]) => unknown).apply(target, args)) : value;
      },
    }),
    ids: { newId: () => randomUUID() },
    clock,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    ttlSeconds: 86_400,
    waitMs: options.waitMs ?? 2_000,
    pollMs: 5,
    abandonedAfterSeconds: 60,
  });
  const userId = randomUUID();
  let runs = 0;
  /** A request with `key` and `body`, answered by `produce` (which gets commitWith, as a route does). */
  const call = async (key: string | undefined, body: unknown, produce: (commitWith: CommitResponse) => Promise<StoredResponse>, user = userId): Promise<Answer> => {
    const answer: Answer = { status: 0, body: undefined, replayed: false };
    const req = { method: 'POST', path: '/coin/deduct', body, principal: { userId: user }, get: (name: string) => (name.toLowerCase() === 'idempotency-key' ? key : undefined) } as unknown as Request;
    const res = {
      setHeader: (name: string, value: string) => void (name === 'Idempotent-Replayed' && (answer.replayed = value === 'true')),
      status(code: number) {
        answer.status = code;
        return this;
      },
      json(payload: unknown) {
        answer.body = payload;
      },
    } as unknown as Response;
    await responder.respond(req, res, produce);
    return answer;
  };
  /** A use case that changes something in a transaction and stores its response with it (through commitWith). */
  const changing = (response: StoredResponse, before?: Promise<void>) => async (commitWith: CommitResponse) => {
    await before;
    runs++;
    return uow.run(async (tx) => {
      await commitWith((value: StoredResponse) => value)?.(tx, response);
      return response;
    });
  };
  /** A use case that refuses: nothing committed. */
  const refusing = (response: StoredResponse) => async () => {
    runs++;
    return response;
  };
  return { clock, store, storeCalls, uow, call, changing, refusing, runs: () => runs, userId };
}

const gate = () => {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
};

test('without a key the request simply runs', async (t) => {
  const { call, changing, runs } = setup();
  t.like(await call(undefined, { a: 1 }, changing({ status: 200, body: 'x' })), { status: 200, body: 'x', replayed: false });
  t.like(await call(undefined, { a: 1 }, changing({ status: 200, body: 'y' })), { status: 200, body: 'y', replayed: false });
  t.is(runs(), 2);
});

test('the first request runs and its response commits with its change; a repeat replays it without running', async (t) => {
  const { call, changing, runs, store, userId } = setup();
  t.like(await call('k1', { amount: 1 }, changing({ status: 200, body: { coinBalance: 9 } })), { status: 200, body: { coinBalance: 9 }, replayed: false });
  t.like(await store.find(userId, 'k1'), { response: { status: 200, body: { coinBalance: 9 } } });
  t.like(await call('k1', { amount: 1 }, changing({ status: 200, body: { coinBalance: 8 } })), { status: 200, body: { coinBalance: 9 }, replayed: true });
  t.is(runs(), 1);
});

test('a refusal (4xx, nothing changed) is remembered after the fact and replayed too', async (t) => {
  const { call, refusing, changing, runs } = setup();
  await call('k', { amount: 5 }, refusing({ status: 402, body: { message: 'short' } }));
  t.like(await call('k', { amount: 5 }, changing({ status: 200, body: {} })), { status: 402, replayed: true });
  t.is(runs(), 1);
});

test('the same key with another body is 409 IDEMPOTENCY.KEY_REUSED and does not run; keys are per user', async (t) => {
  const { call, changing, runs } = setup();
  await call('k', { amount: 1 }, changing({ status: 200, body: 1 }));
  t.like(await call('k', { amount: 2 }, changing({ status: 200, body: 2 })), { status: 409 });
  t.is(runs(), 1);
  t.like(await call('k', { amount: 2 }, changing({ status: 200, body: 2 }), randomUUID()), { status: 200, replayed: false });
});

test('a 5xx or a throw frees the key so a retry runs', async (t) => {
  const { call, refusing, changing, runs, store, userId } = setup();
  t.like(await call('k', {}, refusing({ status: 503, body: 'down' })), { status: 503 });
  t.is(await store.find(userId, 'k'), null);
  await t.throwsAsync(call('k', {}, async () => Promise.reject(new Error('boom'))), { message: 'boom' });
  t.is(await store.find(userId, 'k'), null);
  t.like(await call('k', {}, changing({ status: 200, body: 'ok' })), { status: 200, replayed: false });
  t.is(runs(), 2);
});

// Pins that a 429 ("try again later") is not the request's answer: it is not stored, and the retry runs.
test('a 429 is not remembered: the key stays free and a retry runs', async (t) => {
  const { call, refusing, changing, runs, store, userId } = setup();
  t.like(await call('k', { amount: 1 }, refusing({ status: 429, body: 'slow down' })), { status: 429, replayed: false });
  t.is(await store.find(userId, 'k'), null);
  t.like(await call('k', { amount: 1 }, changing({ status: 200, body: 'charged' })), { status: 200, body: 'charged', replayed: false });
  t.is(runs(), 2);
});

test('a change whose transaction rolls back leaves no remembered response and frees the key', async (t) => {
  const { call, uow, store, userId } = setup();
  const failing = async (commitWith: CommitResponse) =>
    uow.run(async (tx) => {
      await commitWith((value: StoredResponse) => value)?.(tx, { status: 200, body: 'never' });
      throw new Error('the change failed after its response was written');
    });
  await t.throwsAsync(call('k', {}, failing), { message: /change failed/ });
  t.is(await store.find(userId, 'k'), null);
});

test('a concurrent repeat waits for the first request and replays its response', async (t) => {
  const { call, changing, runs } = setup();
  const first = gate();
  const a = call('k', {}, changing({ status: 200, body: 'charged once' }, first.opened));
  const b = call('k', {}, changing({ status: 200, body: 'charged twice' }, first.opened));
  await new Promise((resolve) => setTimeout(resolve, 30));
  first.open();
  const results = await Promise.all([a, b]);
  t.is(runs(), 1);
  t.deepEqual(results.map((r) => [r.body, r.replayed]).sort(), [['charged once', false], ['charged once', true]]);
});

test('when the first request fails while a repeat waits, the repeat runs it instead', async (t) => {
  const { call, changing } = setup();
  const first = gate();
  const a = call('k', {}, async () => {
    await first.opened;
    throw new Error('first attempt crashed');
  });
  const b = call('k', {}, changing({ status: 200, body: 'second try' }));
  await new Promise((resolve) => setTimeout(resolve, 20));
  first.open();
  await t.throwsAsync(a, { message: 'first attempt crashed' });
  t.like(await b, { body: 'second try', replayed: false });
});

test('a repeat that waited too long gets 409 IDEMPOTENCY.IN_PROGRESS', async (t) => {
  const { call, changing } = setup({ waitMs: 40 });
  const first = gate();
  const a = call('k', {}, changing({ status: 200, body: 1 }, first.opened));
  // Bounded: a repeat that kept waiting past waitMs must fail this test, not hang it.
  const repeat = call('k', {}, changing({ status: 200, body: 2 }));
  t.like(await Promise.race([repeat, new Promise((resolve) => setTimeout(() => resolve('still waiting'), 5_000))]), { status: 409 });
  first.open();
  await repeat;
  t.like(await a, { body: 1 });
});

test('an abandoned claim is taken over; the old holder can no longer complete it, and its change rolls back', async (t) => {
  const { call, changing, store, clock, userId } = setup();
  const first = gate();
  const slow = call('k', {}, changing({ status: 200, body: 'first' }, first.opened));
  await new Promise((resolve) => setTimeout(resolve, 10));
  clock.time += 61_000;
  t.like(await call('k', {}, changing({ status: 200, body: 'took over' })), { body: 'took over', replayed: false });
  first.open();
  t.like(await slow, { status: 409 }, 'the late holder is refused: its change did not commit');
  t.like(await store.find(userId, 'k'), { response: { body: 'took over' } });
});

test('after 24 h a key starts afresh, even with another body', async (t) => {
  const { call, changing, runs, clock } = setup();
  await call('k', { day: 1 }, changing({ status: 200, body: 'day one' }));
  clock.time += 86_400_000 - 1;
  t.like(await call('k', { day: 1 }, changing({ status: 200, body: 'x' })), { replayed: true });
  clock.time += 1;
  t.like(await call('k', { day: 2 }, changing({ status: 200, body: 'day two' })), { body: 'day two', replayed: false });
  t.is(runs(), 2);
});

// Pins that a response the service never remembers (a 5xx, a 429) is not stored inside the change's transaction either,
// should a use case hand one to commitWith: the key stays free and a retry runs.
test('a 5xx handed to commitWith is not stored with the change; the key stays free', async (t) => {
  const { call, changing, runs, store, userId } = setup();
  t.like(await call('k', {}, changing({ status: 503, body: 'engine down' })), { status: 503, replayed: false });
  t.is(await store.find(userId, 'k'), null);
  t.like(await call('k', {}, changing({ status: 200, body: 'ok' })), { status: 200, replayed: false });
  t.is(runs(), 2);
});

// Pins that a response stored with the change is not written again after the commit, nor its claim released: the
// request's only statements outside its transaction are the claim.
test('a response committed with the change is not completed or released again after it', async (t) => {
  const { call, changing, storeCalls, store, userId } = setup();
  t.like(await call('k', {}, changing({ status: 200, body: 'charged' })), { status: 200, replayed: false });
  t.deepEqual(storeCalls, ['claim']);
  t.like(await store.find(userId, 'k'), { response: { status: 200, body: 'charged' } });
});
