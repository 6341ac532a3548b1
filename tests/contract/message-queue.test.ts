import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { MemoryMessageQueue } from '../../adapters/memory/memory-message-queue.ts';
import { MemoryStore } from '../../adapters/memory/memory-store.ts';
import { SequelizeDatabase, type DatabaseOptions } from '../../adapters/sequelize/sequelize-database.ts';
import { SequelizeMessageQueue, type SequelizeMessageQueueOptions } from '../../adapters/sequelize/sequelize-message-queue.ts';
import { createMariaDatabase } from '../support/databases.ts';
import { FAST, messageQueueContract, waitFor, type QueueBackend } from './message-queue.contract.ts';

messageQueueContract(
  'memory',
  async (): Promise<QueueBackend> => {
    const store = new MemoryStore();
    const make = async () => ({ queue: new MemoryMessageQueue(store, FAST), uow: null });
    return { make, makeOther: make, dispose: async () => {} };
  },
  { transactional: false },
);

/** One database per backend; `makeOther` opens a second SequelizeDatabase on it, as another process would. */
async function sequelizeBackend(options: DatabaseOptions, cleanup: () => Promise<void>): Promise<QueueBackend> {
  const main = new SequelizeDatabase(options);
  await main.migrate();
  const opened: SequelizeDatabase[] = [main];
  return {
    make: async () => ({ queue: new SequelizeMessageQueue(main, FAST), uow: main }),
    makeOther: async () => {
      const db = new SequelizeDatabase(options);
      opened.push(db);
      return { queue: new SequelizeMessageQueue(db, FAST), uow: db };
    },
    dispose: async () => {
      for (const db of opened) await db.close();
      await cleanup();
    },
  };
}

const sqliteOptions = (): { options: DatabaseOptions; cleanup: () => Promise<void> } => {
  const dir = mkdtempSync(path.join(tmpdir(), 'mgs-queue-'));
  return {
    options: { url: 'sqlite:', dialect: 'sqlite', storagePath: path.join(dir, 'app.db') },
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
};

messageQueueContract(
  'sqlite',
  () => {
    const { options, cleanup } = sqliteOptions();
    return sequelizeBackend(options, cleanup);
  },
  { transactional: true },
);

messageQueueContract(
  'mariadb',
  async () => {
    const maria = await createMariaDatabase();
    return sequelizeBackend({ url: maria.url, dialect: 'mysql' }, () => maria.drop());
  },
  { transactional: true },
);

// The database queue polls; a publish in the same process must not wait for the next poll.
for (const dialect of ['sqlite', 'mariadb'] as const) {
  test(`${dialect}: a publish in this process wakes an idle consumer at once (also after a unit of work commits)`, async (t) => {
    let db: SequelizeDatabase;
    let cleanup: () => Promise<void>;
    if (dialect === 'sqlite') {
      const sqlite = sqliteOptions();
      db = new SequelizeDatabase(sqlite.options);
      cleanup = sqlite.cleanup;
    } else {
      const maria = await createMariaDatabase();
      db = new SequelizeDatabase({ url: maria.url, dialect: 'mysql' });
      cleanup = () => maria.drop();
    }
    await db.migrate();
    const slow: SequelizeMessageQueueOptions = { pollIntervalMs: 10_000 };
    const queue = new SequelizeMessageQueue(db, slow);
    t.teardown(async () => {
      await queue.close();
      await db.close();
      await cleanup();
    });
    const latencies: number[] = [];
    let publishedAt = 0;
    const consumer = await queue.consume(
      { taskTypes: ['generation'], environment: 'local', concurrency: 1, maxAttempts: 3, visibilitySeconds: 5 },
      async () => {
        latencies.push(Date.now() - publishedAt);
        return { action: 'ack' };
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 100)); // the first (empty) poll is done: the loop sleeps
    publishedAt = Date.now();
    await queue.publish({ taskType: 'generation', environment: 'local', body: { n: 1 } });
    await waitFor(() => latencies.length === 1, 'the first delivery', 2000);
    publishedAt = Date.now();
    await db.run(async () => {
      await queue.publish({ taskType: 'generation', environment: 'local', body: { n: 2 } });
      await new Promise((resolve) => setTimeout(resolve, 50)); // not visible to the poller before the commit
    });
    await waitFor(() => latencies.length === 2, 'the second delivery', 2000);
    await consumer.stop();
    // Far below the 10 s poll interval (the margin is for a loaded machine).
    t.true(latencies[0]! < 1500, `first took ${latencies[0]} ms`);
    t.true(latencies[1]! < 1500, `second took ${latencies[1]} ms`);
  });
}
