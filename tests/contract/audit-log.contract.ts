import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { AuditEntry } from '../../core/domain/audit.ts';
import { at, freshBackend, type MakeBackend } from './fixtures.ts';

const entry = (createdAt: Date, over: Partial<AuditEntry> = {}): AuditEntry => ({
  id: randomUUID(),
  actorId: randomUUID(),
  action: 'coin.add',
  targetUserId: randomUUID(),
  details: { amount: 5, reason: 'admin_adjustment', note: 'ünïcødé ✓ "quoted"', nested: { balanceAfter: 12, list: [1, null] } },
  createdAt,
  ...over,
});

const ids = (entries: AuditEntry[]) => entries.map((e) => e.id);

/** Registers the AuditLog contract for one backend; `make()` returns a fresh, empty backend. */
export function auditLogContract(name: string, make: MakeBackend): void {
  test(`${name}: record, then list reads the entries back newest first, page by page`, async (t) => {
    const { repos } = await freshBackend(t, make);
    const entries = [
      entry(at(3000)),
      entry(at(1000), { action: 'coin.deduct', targetUserId: null, details: {} }),
      entry(at(5000)),
      entry(at(2000)),
      entry(at(4000)),
    ];
    for (const e of entries) await repos.audit.record(e);
    const newestFirst = [...entries].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
    t.deepEqual(await repos.audit.list({ page: 1, limit: 2 }), { items: newestFirst.slice(0, 2), page: 1, limit: 2, total: 5, totalPages: 3 });
    t.deepEqual(ids((await repos.audit.list({ page: 2, limit: 2 })).items), ids(newestFirst.slice(2, 4)));
    t.deepEqual((await repos.audit.list({ page: 3, limit: 2 })).items, newestFirst.slice(4));
    t.deepEqual((await repos.audit.list({ page: 4, limit: 2 })).items, []);
  });

  test(`${name}: an empty log lists nothing`, async (t) => {
    const { repos } = await freshBackend(t, make);
    t.deepEqual(await repos.audit.list({ page: 1, limit: 20 }), { items: [], page: 1, limit: 20, total: 0, totalPages: 0 });
  });

  test(`${name}: an entry recorded in a unit of work commits with it, or is gone with its rollback`, async (t) => {
    const { repos, uow } = await freshBackend(t, make);
    const kept = entry(at(1));
    const lost = entry(at(2));
    await uow.run((tx) => tx.audit.record(kept));
    await t.throwsAsync(
      uow.run(async (tx) => {
        await tx.audit.record(lost);
        throw new Error('the balance change failed');
      }),
      { message: 'the balance change failed' },
    );
    t.deepEqual(await repos.audit.list({ page: 1, limit: 20 }), { items: [kept], page: 1, limit: 20, total: 1, totalPages: 1 });
  });
}
