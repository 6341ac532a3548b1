import { DataTypes } from 'sequelize';
import type { Migration } from './migration.ts';

/**
 * A job's turn among its owner's (ADR 047): fixed at submit (1 + the owner's queued and running jobs then), written
 * on its database-queue message as `fair_seq`, and counted by the queue position. Queued jobs get the `fair_seq`
 * their waiting message was given (found by the job id in its body), so a waiting job keeps its place; every other
 * job, or one whose message is on another queue, gets 1. The index serves the position: queued jobs by turn, then time.
 */
export const jobQueueTurns: Migration = {
  name: '022-job-queue-turns',
  async up(qi, dialect) {
    await qi.addColumn('generation_jobs', 'queue_turn', { type: DataTypes.INTEGER, allowNull: false, defaultValue: 1 });
    // A generation message's body starts with its job id ({"jobId":...}); only waiting jobs need their place back.
    const jobIdOf = dialect === 'sqlite' ? "json_extract(q.body, '$.jobId')" : "JSON_UNQUOTE(JSON_EXTRACT(q.body, '$.jobId'))";
    await qi.sequelize.query(
      `UPDATE generation_jobs SET queue_turn = COALESCE((SELECT MAX(q.fair_seq) FROM queue_messages q
         WHERE q.task_type = 'generation' AND q.status = 'ready' AND q.fair_seq > 0 AND ${jobIdOf} = generation_jobs.id), 1)
       WHERE status = 'queued'`,
    );
    await qi.addIndex('generation_jobs', ['status', 'queue_turn', 'created_at'], { name: 'generation_jobs_queue_turn' });
  },
  async down(qi) {
    await qi.removeIndex('generation_jobs', 'generation_jobs_queue_turn');
    await qi.removeColumn('generation_jobs', 'queue_turn');
  },
};
