import { DataTypes } from 'sequelize';
import type { Migration } from './migration.ts';

const timestamp = (allowNull = false) => ({ type: DataTypes.DATE(3), allowNull });

/**
 * Linked deductions are stored explicitly (ADR 027): the core writes one row for each deduction a job may claim,
 * and ends it once. Until now the claimable rows were found by a query over the ledger that encoded the rule in
 * SQL (and again in the memory adapter); `deduction_claims` held only the endings. The rows that query found are
 * copied over with their endings, so nothing claimable or refundable is lost.
 */
export const linkedDeductions: Migration = {
  name: '012-linked-deductions',
  async up(qi) {
    await qi.createTable('linked_deductions', {
      deduction_id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      user_id: { type: DataTypes.UUID, allowNull: false, references: { model: 'users', key: 'id' }, onDelete: 'CASCADE' },
      related_entity_id: { type: DataTypes.STRING(128), allowNull: false },
      amount: { type: DataTypes.INTEGER, allowNull: false },
      created_at: timestamp(),
      outcome: { type: DataTypes.STRING(16), allowNull: true },
      job_id: { type: DataTypes.UUID, allowNull: true },
      ended_at: timestamp(true),
    });
    await qi.addIndex('linked_deductions', ['user_id', 'related_entity_id'], { name: 'linked_deductions_user_related' });
    await qi.addIndex('linked_deductions', ['outcome', 'created_at'], { name: 'linked_deductions_open' });
    // The last use of the old rule: a user's own generation deduction naming a related entity.
    await qi.sequelize.query(`
      INSERT INTO linked_deductions (deduction_id, user_id, related_entity_id, amount, created_at, outcome, job_id, ended_at)
      SELECT t.id, t.user_id, t.related_entity_id, -t.amount, t.created_at, c.outcome, c.job_id, c.created_at
      FROM coin_transactions t
      LEFT JOIN deduction_claims c ON c.deduction_id = t.id
      WHERE t.amount < 0
        AND t.reason IN ('image_generation', 'video_generation')
        AND t.related_entity_id IS NOT NULL
        AND t.actor_id = t.user_id`);
    await qi.dropTable('deduction_claims');
  },
  async down(qi) {
    await qi.createTable('deduction_claims', {
      deduction_id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      outcome: { type: DataTypes.STRING(16), allowNull: false },
      job_id: { type: DataTypes.UUID, allowNull: true },
      created_at: timestamp(),
    });
    await qi.sequelize.query(`
      INSERT INTO deduction_claims (deduction_id, outcome, job_id, created_at)
      SELECT deduction_id, outcome, job_id, ended_at FROM linked_deductions WHERE outcome IS NOT NULL`);
    await qi.dropTable('linked_deductions');
  },
};
