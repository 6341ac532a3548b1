/**
 * A second baseline for coin deductions: bare Express with its JSON body parser doing the same durable work by hand on
 * SQLite (WAL, synchronous=NORMAL): per request one transaction (BEGIN IMMEDIATE, the conditional balance update with
 * RETURNING, the ledger row, COMMIT), one at a time on one connection. No authentication, validation, idempotency,
 * group commit, logging, metrics or security headers: what the same write costs with nothing else around it. The user
 * is named by the `x-user` header; `POST /users` makes DISTINCT users.
 *
 * DRIVER picks the SQLite library: `sqlite3` (the default; the product's driver, asynchronous: every statement is a
 * round trip through libuv's thread pool) or `node:sqlite` (Node's built-in, synchronous: the whole transaction runs
 * in one turn of the event loop, the fastest a deduction on SQLite can be in Node).
 */
import { randomUUID } from 'node:crypto';
import { DatabaseSync } from 'node:sqlite';
import express from 'express';
import sqlite3 from 'sqlite3';

const SCHEMA = [
  'PRAGMA journal_mode = WAL',
  'PRAGMA synchronous = NORMAL',
  'CREATE TABLE users (id TEXT PRIMARY KEY, coin_balance INTEGER NOT NULL)',
  'CREATE TABLE ledger (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, amount INTEGER NOT NULL, reason TEXT NOT NULL, balance_after INTEGER NOT NULL, created_at TEXT NOT NULL)',
];
const ADD_USER = 'INSERT INTO users (id, coin_balance) VALUES (?, ?)';
const TAKE = 'UPDATE users SET coin_balance = coin_balance - ? WHERE id = ? AND coin_balance >= ? RETURNING coin_balance';
const LEDGER_ROW = 'INSERT INTO ledger (id, user_id, amount, reason, balance_after, created_at) VALUES (?, ?, ?, ?, ?, ?)';

interface Store {
  addUser(id: string): Promise<void>;
  /** The balance after taking `amount`, or null when it was too low. */
  deduct(userId: string, amount: number, reason: string): Promise<number | null>;
  close(): Promise<void>;
}

async function asyncStore(file: string): Promise<Store> {
  const db = new sqlite3.Database(file);
  const run = (sql: string, params: unknown[] = []) => new Promise<void>((resolve, reject) => db.run(sql, params, (error) => (error ? reject(error) : resolve())));
  const get = <T>(sql: string, params: unknown[] = []) => new Promise<T | undefined>((resolve, reject) => db.get(sql, params, (error, row) => (error ? reject(error) : resolve(row as T))));
  for (const statement of SCHEMA) await run(statement);
  // One connection: its transactions go one after another.
  let chain: Promise<unknown> = Promise.resolve();
  const serially = <T>(work: () => Promise<T>): Promise<T> => {
    const done = chain.then(work, work);
    chain = done.catch(() => undefined);
    return done;
  };
  return {
    addUser: (id) => run(ADD_USER, [id, 1_000_000]),
    deduct: (userId, amount, reason) =>
      serially(async () => {
        await run('BEGIN IMMEDIATE');
        try {
          const row = await get<{ coin_balance: number }>(TAKE, [amount, userId, amount]);
          if (row) await run(LEDGER_ROW, [randomUUID(), userId, -amount, reason, row.coin_balance, new Date().toISOString()]);
          await run('COMMIT');
          return row?.coin_balance ?? null;
        } catch (error) {
          await run('ROLLBACK');
          throw error;
        }
      }),
    close: () => new Promise((resolve) => db.close(() => resolve())),
  };
}

function syncStore(file: string): Store {
  const db = new DatabaseSync(file);
  for (const statement of SCHEMA) db.exec(statement);
  const [addUser, take, ledgerRow, begin, commit, rollback] = [ADD_USER, TAKE, LEDGER_ROW, 'BEGIN IMMEDIATE', 'COMMIT', 'ROLLBACK'].map((sql) => db.prepare(sql));
  return {
    addUser: async (id) => void addUser!.run(id, 1_000_000),
    deduct: async (userId, amount, reason) => {
      begin!.run();
      try {
        const row = take!.get(amount, userId, amount) as { coin_balance: number } | undefined;
        if (row) ledgerRow!.run(randomUUID(), userId, -amount, reason, row.coin_balance, new Date().toISOString());
        commit!.run();
        return row?.coin_balance ?? null;
      } catch (error) {
        rollback!.run();
        throw error;
      }
    },
    close: async () => db.close(),
  };
}

const store = process.env.DRIVER === 'node:sqlite' ? syncStore(process.env.DB_PATH!) : await asyncStore(process.env.DB_PATH!);
const app = express();
app.use(express.json());
app.post('/users', async (req, res) => {
  const ids = Array.from({ length: Number(req.body.count) }, () => randomUUID());
  for (const id of ids) await store.addUser(id);
  res.json({ ids });
});
app.post('/deduct', async (req, res) => {
  const balance = await store.deduct(req.get('x-user')!, req.body.amount as number, req.body.reason as string);
  if (balance === null) res.status(402).json({ error: 'Payment Required' });
  else res.json({ id: req.get('x-user'), coinBalance: balance });
});
app.get('/hello', (_req, res) => {
  res.json({ hello: 'world' });
});
const server = app.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => void store.close().then(() => process.exit(0))));
