import type { Mutation } from '../mutation.ts';

export const MUTATIONS: Mutation[] = [
  {
    name: 'dead letters do not end their job',
    file: 'adapters/sequelize/sequelize-queue-consumer.ts',
    find: 'if (this.options.onDeadLetter && message) await this.options.onDeadLetter(message, settlement.reason);',
    replace: '',
    tests: ['tests/integration/exactly-once-defects.test.ts', 'tests/contract/message-queue.test.ts'],
  },
  {
    name: 'queue acks delete (no tombstone)',
    file: 'adapters/sequelize/sequelize-queue-consumer.ts',
    find: "changed = await this.write({ status: 'done', claim_token: null, updated_at: clock.now() }, where);",
    replace: 'changed = await this.deps.db.autocommit.write((scope) => queueMessageModel(scope.sequelize).destroy({ where, ...scope.options }));',
    tests: ['tests/integration/worker-defects.test.ts', 'tests/contract/message-queue.test.ts'],
  },
  {
    name: 'relays do not respect leases',
    file: 'adapters/sequelize/sequelize-outbox.ts',
    find: "{ where: { id: { [Op.in]: candidates.map((row) => row.id) }, ...free(now) }, ...s.options },",
    replace: "{ where: { id: { [Op.in]: candidates.map((row) => row.id) } }, ...s.options },",
    tests: ['tests/contract/outbox.test.ts', 'tests/integration/queue.test.ts'],
  },
  {
    name: 'memory unit of work does not roll back',
    file: 'adapters/memory/memory-store.ts',
    find: '        this.restore(before);',
    replace: '',
    tests: ['tests/contract/unit-of-work.test.ts', 'tests/unit/generation.test.ts'],
  },
  {
    name: 'queue: last_error not cut',
    file: 'adapters/sequelize/sequelize-queue-consumer.ts',
    find: 'last_error: settlement.reason.slice(0, 10_000)',
    replace: 'last_error: settlement.reason',
    tests: ['tests/contract/message-queue.test.ts'],
  },
  {
    name: 'database queue: FIFO instead of users in turn',
    file: 'adapters/sequelize/sequelize-queue-consumer.ts',
    find: 'ORDER BY fair_seq ASC, visible_at ASC',
    replace: 'ORDER BY visible_at ASC',
    tests: ['tests/integration/fairness.test.ts'],
  },
  {
    name: 'queue ack in the handler\'s transaction: no claim-token guard',
    file: 'adapters/sequelize/sequelize-queue-consumer.ts',
    find: "WHERE id = ? AND claim_token = ? AND status = 'ready'\", [",
    replace: "WHERE id = ? AND (claim_token = ? OR 1 = 1) AND status = 'ready'\", [",
    tests: ['tests/integration/queue-ack-in-transaction.test.ts'],
  },
  {
    name: 'queue ack in the handler\'s transaction: counted as settled before the commit',
    file: 'adapters/sequelize/sequelize-queue-consumer.ts',
    find: 'if (changed === 1) scope.afterCommit(() => void (ack.committed = true));',
    replace: 'if (changed === 1) ack.committed = true;',
    tests: ['tests/integration/queue-ack-in-transaction.test.ts'],
  },
  {
    // On MariaDB the statement leaves the transaction's connection (SQLite's writer has only the one).
    name: 'queue ack in the handler\'s transaction: written outside it',
    file: 'adapters/sequelize/sequelize-queue-consumer.ts',
    find: "const changed = await scope.run(\"UPDATE queue_messages SET status = 'done'",
    replace: "const changed = await this.deps.db.autocommit.run(\"UPDATE queue_messages SET status = 'done'",
    tests: ['tests/integration/queue-ack-in-transaction.test.ts'],
  },
  {
    name: 'database queue take: a message already taken by a rival is taken again (no attempts guard)',
    file: 'adapters/sequelize/sequelize-queue-consumer.ts',
    find: "WHERE id = ? AND status = 'ready' AND attempts = ? AND visible_at <= ?\",",
    replace: "WHERE id = ? AND status = 'ready' AND (attempts = ? OR 1 = 1) AND visible_at <= ?\",",
    tests: ['tests/contract/message-queue.test.ts', 'tests/integration/queue.test.ts'],
  },
  {
    name: 'database queue take: a settled (done or dead) message is taken again (no status guard)',
    file: 'adapters/sequelize/sequelize-queue-consumer.ts',
    find: "WHERE id = ? AND status = 'ready' AND attempts = ?",
    replace: "WHERE id = ? AND (status = 'ready' OR 1 = 1) AND attempts = ?",
    tests: ['tests/integration/queue-take-guard.test.ts'],
  },
  {
    name: 'database queue: a second publish of a messageId fails instead of keeping the first (the driver\'s own unique error not recognised)',
    file: 'adapters/sequelize/sql-scope.ts',
    find: "((error as { code?: string } | null)?.code === 'SQLITE_CONSTRAINT' && /UNIQUE constraint failed/.test(String((error as Error).message)))",
    replace: 'false',
    tests: ['tests/contract/message-queue.test.ts'],
  },
];
