import type { Mutation } from '../mutation.ts';

/**
 * The in-memory outbox (adapters/memory/memory-outbox.ts), held to the same contract as the SQL one
 * (tests/contract/outbox.contract.ts): every queued message is published, once, in order.
 */
const file = 'adapters/memory/memory-outbox.ts';
const tests = ['tests/contract/outbox.test.ts'];
const entry = (name: string, find: string, replace: string): Mutation => ({ name: `memory outbox: ${name}`, file, find, replace, tests });

export const MUTATIONS: Mutation[] = [
  entry('an entry added twice overwrites the first', "    if (this.rows.has(entry.id)) throw new Error(`outbox entry ${entry.id} already exists`);\n", ''),
  entry('the message kept by reference (a later change of the caller reaches it)', '      message: JSON.stringify(entry.message),', '      message: entry.message as unknown as string,'),
  {
    name: 'sql outbox: entries of one instant not leased by id',
    file: 'adapters/sequelize/sequelize-outbox.ts',
    find: 'AND (lease_until IS NULL OR lease_until <= :now) ORDER BY created_at ASC, id ASC LIMIT',
    replace: 'AND (lease_until IS NULL OR lease_until <= :now) ORDER BY created_at ASC, id DESC LIMIT',
    tests,
  },
  entry('a published entry leased again', 'row.publishedAt === null && (row.leaseUntil === null || row.leaseUntil <= now)', '(row.leaseUntil === null || row.leaseUntil <= now)'),
  entry('an entry under a live lease leased again', 'row.publishedAt === null && (row.leaseUntil === null || row.leaseUntil <= now)', 'row.publishedAt === null'),
  entry('an expired lease never taken over', 'row.publishedAt === null && (row.leaseUntil === null || row.leaseUntil <= now)', 'row.publishedAt === null && row.leaseUntil === null'),
  entry('entries leased out of order', '      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))\n', ''),
  entry('entries of one instant not leased by id', '|| (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)', ''),
  entry('more entries leased than asked', '      .slice(0, Math.max(0, max));', ';'),
  entry('an entry marked published twice', "    if (!row || row.publishedAt !== null || row.leaseToken !== token) return false;", '    if (!row || row.leaseToken !== token) return false;'),
  entry('an entry marked published under another lease', "    if (!row || row.publishedAt !== null || row.leaseToken !== token) return false;", '    if (!row || row.publishedAt !== null) return false;'),
  entry('an unpublished entry purged', '      if (row.publishedAt !== null && row.publishedAt < before) {', '      if (row.publishedAt === null || row.publishedAt < before) {'),
  entry('a recently published entry purged', '      if (row.publishedAt !== null && row.publishedAt < before) {', '      if (row.publishedAt !== null) {'),
  entry('no notification after the adding transaction commits', '    this.afterCommit(() => this.signal.notify());\n', ''),
];
