import { randomUUID } from 'node:crypto';
import test from 'ava';
import { MemoryCache } from '../../adapters/memory/memory-cache.ts';
import { SequelizeUnitOfWork } from '../../adapters/sequelize/sequelize-unit-of-work.ts';
import type { OutboxEntry } from '../../core/ports/outbox.port.ts';
import { BACKENDS, openBackend, type Backend } from '../support/backends.ts';
import { addUser } from '../contract/fixtures.ts';

// Guards of the in-memory adapters (adapters/memory) the contract suites leave open, run against every backend so the
// memory adapter is held to what the SQL ones do; and of the Sequelize unit of work's wiring of the outbox writer.

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const at = (ms: number): Date => new Date(T0 + ms);

for (const name of BACKENDS) {
  let opened: Promise<Backend> | null = null;
  const backend = () => (opened ??= openBackend(name));
  test.after.always(async () => {
    if (opened) await (await opened.catch(() => null))?.dispose();
  });

  // Pins the identity key: (provider, subject) is a pair, so "git"+"hub-1" and "github"+"-1" are two identities.
  test(`${name}: identities whose provider and subject run together as one text are still distinct`, async (t) => {
    const { repos } = await backend();
    const [first, second] = [await addUser(repos.users), await addUser(repos.users)];
    const tail = randomUUID();
    t.true(await repos.identities.link({ userId: first, provider: 'git', subject: `hub-${tail}`, email: null, createdAt: at(1) }));
    t.true(await repos.identities.link({ userId: second, provider: 'github', subject: `-${tail}`, email: null, createdAt: at(2) }));
    t.is((await repos.identities.findBySubject('git', `hub-${tail}`))?.userId, first);
    t.is((await repos.identities.findBySubject('github', `-${tail}`))?.userId, second);
  });

  // Pins the ledger's UPDATE users SET ..., updated_at = ?: an applied entry stamps the user, a refused one does not.
  test(`${name}: an applied coin entry sets the user's update time; a refused one leaves it`, async (t) => {
    const { repos } = await backend();
    const userId = await addUser(repos.users);
    const entry = (amount: number, ms: number) => ({ id: randomUUID(), userId, amount, reason: 'admin_adjustment' as const, relatedEntityId: null, actorId: null, createdAt: at(ms) });
    t.true((await repos.ledger.apply(entry(10, 5_000))).ok);
    t.deepEqual((await repos.users.findById(userId))?.updatedAt, at(5_000));
    t.deepEqual(await repos.ledger.apply(entry(-11, 6_000)), { ok: false, reason: 'insufficient' });
    t.deepEqual((await repos.users.findById(userId))?.updatedAt, at(5_000));
  });
}

// Pins the memory cache's sweep: the minute sweep drops expired entries only; a live value survives it.
test('memory cache: the periodic sweep keeps live values', async (t) => {
  let now = T0;
  let sweep: (() => void) | null = null;
  const original = globalThis.setInterval;
  globalThis.setInterval = ((fn: () => void) => {
    sweep = fn;
    return original(() => undefined, 1_000_000_000);
  }) as typeof setInterval;
  let cache: MemoryCache;
  try {
    cache = new MemoryCache(() => now);
  } finally {
    globalThis.setInterval = original;
  }
  t.teardown(() => cache.close());
  await cache.set('short', 'gone soon', 30);
  await cache.set('long', 'stays', 300);
  await cache.increment('hits', 600);
  now += 60_000;
  t.not(sweep, null);
  sweep!();
  t.is(await cache.get('short'), null);
  t.is(await cache.get('long'), 'stays');
  t.deepEqual(await cache.counter('hits'), { count: 1, ttlSeconds: 540 });
});

// Pins SequelizeUnitOfWork's outboxWriter option (QUEUE_DRIVER=db): a transaction's outbox goes to that writer, in the
// transaction, and writes no outbox row for a relay to publish a second time.
for (const name of BACKENDS.filter((b) => b !== 'memory')) {
  test(`${name}: a unit of work given an outbox writer hands its transactions' messages to it, not to the outbox table`, async (t) => {
    const base = await openBackend(name);
    t.teardown(() => base.dispose());
    const written: OutboxEntry[] = [];
    const uow = new SequelizeUnitOfWork(base.db!, { outboxWriter: () => ({ add: async (entry) => void written.push(entry) }) });
    const entry: OutboxEntry = { id: randomUUID(), message: { taskType: 'audit.test', environment: 'local', body: { n: 1 } }, createdAt: at(0) };
    await uow.run((tx) => tx.outbox.add(entry));
    t.deepEqual(written, [entry]);
    t.deepEqual(await uow.outbox.lease(10, { token: randomUUID(), until: at(60_000) }, at(1_000)), [], 'no outbox row');
  });
}
