import { randomUUID } from 'node:crypto';
import test from 'ava';
// The package's `./core` export, exactly as an integrator imports it.
import { DeductCoins, JobPayment, RegisterUser, renderWorkflow, validateWorkflowGraph, type Clock, type PasswordHasher } from 'media-gen-service/core';
import { MemoryCache } from '../../adapters/memory/memory-cache.ts';
import { shippedCommonPasswords } from '../../adapters/system/common-password-file.ts';
import { MemoryStore } from '../../adapters/memory/memory-store.ts';
import { MemoryUnitOfWork } from '../../adapters/memory/memory-unit-of-work.ts';

test('an integrator runs core use cases with adapters of their own choosing', async (t) => {
  const uow = new MemoryUnitOfWork(new MemoryStore());
  const { users } = uow.autocommit;
  const clock: Clock = { now: () => new Date('2026-01-01T00:00:00Z') };
  // Their own password hasher: anything that implements the port.
  const hasher: PasswordHasher = { hash: async (p) => `plain:${p}`, verify: async (p, h) => h === `plain:${p}` };
  const ids = { newId: () => randomUUID() };

  const cache = new MemoryCache();
  t.teardown(() => cache.close());
  const limits = { perAddress: 5, windowSeconds: 3600 };
  const register = new RegisterUser({ users, hasher, uow, ids, clock, adminEmails: [], signupBonusCoins: 10, cache, limits, commonPasswords: shippedCommonPasswords() });
  const registered = await register.execute({ email: 'Embed@Example.com', password: 'long enough', displayName: 'Embedder', clientAddress: '192.0.2.1' });
  if (!registered.ok) return t.fail(registered.message);
  t.is(registered.value.email, 'embed@example.com');
  t.is(registered.value.coinBalance, 10);

  const deduct = new DeductCoins({ users, uow, payment: new JobPayment({ ids }), ids, clock });
  const spent = await deduct.execute({ userId: registered.value.id, amount: 4, reason: 'image_generation' });
  t.true(spent.ok);
  const tooMuch = await deduct.execute({ userId: registered.value.id, amount: 7, reason: 'image_generation' });
  t.is(!tooMuch.ok && tooMuch.code, 'COIN.INSUFFICIENT');

  const graph = validateWorkflowGraph({ '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0 } }, '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'x' } } });
  if (!graph.ok) return t.fail();
  const rendered = renderWorkflow({ workflow: graph.value, parameterMap: { width: { key: 'width', type: 'integer', node_id: '1', input_name: 'width', min: 8, max: 64 } } }, { width: 32 }, Math.random);
  t.true(rendered.ok && rendered.value.workflow['1']!.inputs.width === 32);
});

test('every core module is part of the ./core export', async (t) => {
  const { readdirSync, readFileSync, statSync } = await import('node:fs');
  const { join, relative } = await import('node:path');
  const index = readFileSync('core/index.ts', 'utf8');
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? walk(join(dir, name)) : name.endsWith('.ts') ? [join(dir, name)] : []));
  const missing = ['core/domain', 'core/ports', 'core/use-cases']
    .flatMap(walk)
    .map((file) => `./${relative('core', file)}`)
    .filter((path) => !index.includes(`'${path}'`));
  t.deepEqual(missing, [], 'add them to core/index.ts');
});
