/**
 * Migration 012 on a database that already holds coins: every deduction a job may still claim or the sweep
 * must still refund is carried over open, every ended one with its ending, and nothing else; `down` gives the
 * endings back to `deduction_claims`. An operator upgrading with deductions in flight loses none of them.
 */
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { QueryTypes } from 'sequelize';
import { DATABASES } from '../support/databases.ts';
import { migrationAndBefore, openEmptyDatabase } from '../support/migration-databases.ts';

const { before, migration: linkedDeductions } = migrationAndBefore('012-linked-deductions');

for (const name of DATABASES) {
  test(`[${name}] 012 carries every claimable deduction over with its ending, and nothing else; down gives the endings back`, async (t) => {
    const { sequelize, dialect, dispose } = await openEmptyDatabase(name);
    t.teardown(dispose);
    const qi = sequelize.getQueryInterface();
    for (const migration of before) await migration.up(qi, dialect);

    const userId = randomUUID();
    const adminId = randomUUID();
    const at = '2026-01-01 10:00:00.000';
    const insert = (sql: string, replacements: unknown[]) => sequelize.query(sql, { replacements, type: QueryTypes.INSERT });
    for (const id of [userId, adminId]) {
      await insert('INSERT INTO users (id, email, display_name, role, coin_balance, password_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [id, `${id}@example.com`, 'U', 'user', 100, null, at, at]);
    }
    const row = (amount: number, reason: string, related: string | null, actor: string | null) => {
      const id = randomUUID();
      return { id, insert: () => insert('INSERT INTO coin_transactions (id, user_id, amount, reason, related_entity_id, balance_after, actor_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [id, userId, amount, reason, related, 0, actor, at]) };
    };
    const open = row(-4, 'image_generation', 'request-open', userId);
    const claimed = row(-3, 'video_generation', 'request-claimed', userId);
    const refunded = row(-2, 'image_generation', 'request-refunded', userId);
    const adminDeduction = row(-5, 'image_generation', 'request-admin', adminId);
    const unlinked = row(-1, 'image_generation', null, userId);
    const refund = row(2, 'generation_refund', 'request-refunded', null);
    const adjustment = row(-6, 'admin_adjustment', 'request-adjusted', userId);
    for (const each of [open, claimed, refunded, adminDeduction, unlinked, refund, adjustment]) await each.insert();
    const jobId = randomUUID();
    await insert('INSERT INTO deduction_claims (deduction_id, outcome, job_id, created_at) VALUES (?, ?, ?, ?)', [claimed.id, 'job', jobId, at]);
    await insert('INSERT INTO deduction_claims (deduction_id, outcome, job_id, created_at) VALUES (?, ?, ?, ?)', [refunded.id, 'refunded', null, at]);

    await linkedDeductions.up(qi, dialect);
    const carried = await sequelize.query<{ deduction_id: string; related_entity_id: string; amount: number; outcome: string | null; job_id: string | null }>(
      'SELECT deduction_id, related_entity_id, amount, outcome, job_id FROM linked_deductions ORDER BY related_entity_id',
      { type: QueryTypes.SELECT },
    );
    t.deepEqual(
      carried.map((each) => ({ ...each, amount: Number(each.amount) })),
      [
        { deduction_id: claimed.id, related_entity_id: 'request-claimed', amount: 3, outcome: 'job', job_id: jobId },
        { deduction_id: open.id, related_entity_id: 'request-open', amount: 4, outcome: null, job_id: null },
        { deduction_id: refunded.id, related_entity_id: 'request-refunded', amount: 2, outcome: 'refunded', job_id: null },
      ],
    );
    t.deepEqual(await qi.showAllTables().then((tables) => tables.map(String).includes('deduction_claims')), false);

    await linkedDeductions.down(qi, dialect);
    const endings = await sequelize.query<{ deduction_id: string; outcome: string; job_id: string | null }>('SELECT deduction_id, outcome, job_id FROM deduction_claims ORDER BY outcome', { type: QueryTypes.SELECT });
    t.deepEqual(endings, [
      { deduction_id: claimed.id, outcome: 'job', job_id: jobId },
      { deduction_id: refunded.id, outcome: 'refunded', job_id: null },
    ]);
    t.false((await qi.showAllTables()).map(String).includes('linked_deductions'));
  });
}
