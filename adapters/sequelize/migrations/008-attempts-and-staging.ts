import { DataTypes } from 'sequelize';
import type { Migration } from './migration.ts';

const timestamp = (allowNull = false) => ({ type: DataTypes.DATE(3), allowNull });

/**
 * Exactly once by construction: each delivery attempt fences its writes with a run id and keeps a lease on
 * its job; files an attempt uploads are staged until the transaction that records them as history; relays
 * lease outbox entries; acknowledged database-queue messages stay as tombstones so a republished id is
 * recognised; UUID-shaped related entity ids are compared in lower case everywhere.
 */
export const attemptsAndStaging: Migration = {
  name: '008-attempts-and-staging',
  async up(qi) {
    await qi.addColumn('generation_jobs', 'run_id', { type: DataTypes.STRING(36), allowNull: true });
    await qi.addColumn('generation_jobs', 'lease_until', timestamp(true));
    await qi.addIndex('generation_jobs', ['status', 'lease_until'], { name: 'generation_jobs_status_lease' });

    await qi.createTable('staged_outputs', {
      storage_key: { type: DataTypes.STRING(512), primaryKey: true, allowNull: false },
      job_id: { type: DataTypes.UUID, allowNull: false },
      run_id: { type: DataTypes.STRING(36), allowNull: false },
      created_at: timestamp(),
    });
    await qi.addIndex('staged_outputs', ['run_id'], { name: 'staged_outputs_run' });
    await qi.addIndex('staged_outputs', ['created_at'], { name: 'staged_outputs_created' });
    await qi.addIndex('history_items', ['storage_key'], { name: 'history_items_storage_key' });

    await qi.addColumn('outbox', 'lease_token', { type: DataTypes.STRING(36), allowNull: true });
    await qi.addColumn('outbox', 'lease_until', timestamp(true));

    await qi.addIndex('queue_messages', ['status', 'updated_at'], { name: 'queue_messages_status_updated' });

    await qi.sequelize.query(
      "UPDATE coin_transactions SET related_entity_id = LOWER(related_entity_id) WHERE related_entity_id LIKE '________-____-____-____-____________'",
    );
  },
  async down(qi) {
    await qi.removeIndex('queue_messages', 'queue_messages_status_updated');
    await qi.removeColumn('outbox', 'lease_until');
    await qi.removeColumn('outbox', 'lease_token');
    await qi.removeIndex('history_items', 'history_items_storage_key');
    await qi.dropTable('staged_outputs');
    await qi.removeIndex('generation_jobs', 'generation_jobs_status_lease');
    await qi.removeColumn('generation_jobs', 'lease_until');
    await qi.removeColumn('generation_jobs', 'run_id');
  },
};
