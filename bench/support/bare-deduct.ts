/**
 * A second baseline for coin deductions: bare Express with its JSON body parser doing the same durable work by hand on
 * the same SQLite driver (sqlite3, WAL, synchronous=NORMAL): per request one transaction (BEGIN IMMEDIATE, the
 * conditional balance update with RETURNING, the ledger row, COMMIT), one at a time on one connection. No
 * authentication, validation, idempotency, group commit, logging, metrics or security headers: what the same write
 * costs with nothing else around it. The user is named by the `x-user` header; `POST /users` makes DISTINCT users.
 */
import { randomUUID } from 'node:crypto';
import express from 'express';
import sqlite3 from 'sqlite3';

const db = new sqlite3.Database(process.env.DB_PATH!);
const run = (sql: string, params: unknown[] = []) =>
  new Promise<{ changes: number }>((resolve, reject) => db.run(sql, params, function (this: sqlite3.RunResult, error) { (error ? reject(error) : resolve({ changes: this.changes })); }));
const get = <T>(sql: string, params: unknown[] = []) => new Promise<T | undefined>((resolve, reject) => db.get(sql, params, (error, row) => (error ? reject(error) : resolve(row as T))));

await run('PRAGMA journal_mode = WAL');
await run('PRAGMA synchronous = NORMAL');
await run('CREATE TABLE users (id TEXT PRIMARY KEY, coin_balance INTEGER NOT NULL)');
await run('CREATE TABLE ledger (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, amount INTEGER NOT NULL, reason TEXT NOT NULL, balance_after INTEGER NOT NULL, created_at TEXT NOT NULL)');

// One connection: its transactions go one after another.
let chain: Promise<unknown> = Promise.resolve();
const serially = <T>(work: () => Promise<T>): Promise<T> => {
  const done = chain.then(work, work);
  chain = done.catch(() => undefined);
  return done;
};

const app = express();
app.use(express.json());
app.post('/users', async (req, res) => {
  const ids = Array.from({ length: Number(req.body.count) }, () => randomUUID());
  for (const id of ids) await run('INSERT INTO users (id, coin_balance) VALUES (?, ?)', [id, 1_000_000]);
  res.json({ ids });
});
app.post('/deduct', async (req, res) => {
  const userId = req.get('x-user');
  const amount = req.body.amount as number;
  const balance = await serially(async () => {
    await run('BEGIN IMMEDIATE');
    try {
      const row = await get<{ coin_balance: number }>('UPDATE users SET coin_balance = coin_balance - ? WHERE id = ? AND coin_balance >= ? RETURNING coin_balance', [amount, userId, amount]);
      if (row) await run('INSERT INTO ledger (id, user_id, amount, reason, balance_after, created_at) VALUES (?, ?, ?, ?, ?, ?)', [randomUUID(), userId, -amount, req.body.reason, row.coin_balance, new Date().toISOString()]);
      await run('COMMIT');
      return row?.coin_balance ?? null;
    } catch (error) {
      await run('ROLLBACK');
      throw error;
    }
  });
  if (balance === null) res.status(402).json({ error: 'Payment Required' });
  else res.json({ id: userId, coinBalance: balance });
});
app.get('/hello', (_req, res) => {
  res.json({ hello: 'world' });
});
const server = app.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => db.close(() => process.exit(0))));
