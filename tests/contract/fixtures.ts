import { randomUUID } from 'node:crypto';
import test, { type ExecutionContext } from 'ava';
import type { HistoryItem } from '../../core/domain/job.ts';
import type { Publication, SocialConnection } from '../../core/domain/social.ts';
import type { HistoryRepository } from '../../core/ports/history-repository.port.ts';
import type { NewJob } from '../../core/ports/job-repository.port.ts';
import type { NewUser, UserRepository } from '../../core/ports/user-repository.port.ts';
import type { Backend } from '../support/backends.ts';

/** What every persistence contract receives: a fresh, empty, migrated backend (tests/support/backends.ts). */
export type MakeBackend = () => Promise<Backend>;

export const T0 = Date.parse('2030-01-01T00:00:00.000Z');
export const at = (ms: number): Date => new Date(T0 + ms);
export const SECOND = 1000;
export const HOUR = 3600_000;
export const DAY = 24 * HOUR;

/**
 * Times of their own for the tests that list "everything before X" on a backend other tests share: rows
 * of an era lie far from T0 and from every other era, so such a list holds only that test's rows.
 */
export const era = (n: number) => {
  const start = Date.parse('1990-01-01T00:00:00.000Z') + n * 365 * DAY;
  return (ms: number): Date => new Date(start + ms);
};

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One backend for every test of a suite that keeps to rows of its own: opened by the first test that
 * asks, disposed after the last. A backend that cannot be opened (MariaDB down) fails every test.
 */
export function sharedBackend(make: MakeBackend): () => Promise<Backend> {
  let opened: Promise<Backend> | null = null;
  test.after.always(async () => {
    if (opened) await (await opened.catch(() => null))?.dispose();
  });
  return () => (opened ??= make());
}

/** A backend of the test's own, for the cases that look at a whole table (leases, purges, unpaged lists). */
export async function freshBackend(t: ExecutionContext, make: MakeBackend): Promise<Backend> {
  const backend = await make();
  t.teardown(() => backend.dispose());
  return backend;
}

/** Rejects when `promise` has not settled after `ms` (a deadlock must fail the test, not hang the run). */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** A user row (jobs, history, sessions, uploads and ledger rows refer to one); the email is already normalized. */
export const newUser = (over: Partial<NewUser> = {}): NewUser => {
  const id = over.id ?? randomUUID();
  return { id, email: `${id}@example.com`, displayName: 'Contract user', role: 'user', passwordHash: null, createdAt: at(0), ...over };
};

export async function addUser(users: UserRepository, over: Partial<NewUser> = {}): Promise<string> {
  const user = newUser(over);
  if (!(await users.create(user))) throw new Error(`user ${user.email} was not created`);
  return user.id;
}

export const newJob = (userId: string, over: Partial<NewJob> = {}): NewJob => ({
  id: randomUUID(),
  userId,
  templateId: null,
  templateVersion: null,
  status: 'queued',
  progress: { value: 0, max: 1 },
  statusText: '',
  workflow: { '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0 } }, '2': { class_type: 'SaveImage', inputs: { images: ['1', 0] } } },
  usedParameters: { prompt: 'a "cat" ✓', seed: 42 },
  imageRefs: [],
  outputType: 'image',
  paidCoins: 0,
  testRun: false,
  startDeadline: null,
  queueTurn: 1,
  fitChoices: '',
  createdAt: at(0),
  ...over,
});

export const historyItem = (userId: string, jobId: string, over: Partial<HistoryItem> = {}): HistoryItem => {
  const id = over.id ?? randomUUID();
  const fileName = over.fileName ?? `out-${id.slice(0, 8)}.png`;
  return {
    id,
    jobId,
    userId,
    templateId: null,
    storageKey: `outputs/${userId}/${jobId}/${fileName}`,
    fileName,
    mimeType: 'image/png',
    sizeBytes: 1234,
    width: 8,
    height: 8,
    durationSeconds: null,
    usedParameters: { prompt: 'ünïcødé ✓' },
    createdAt: at(0),
    expiresAt: at(30 * DAY),
    ...over,
  };
};

/** A user with one video output in history, for the social repositories. */
export async function videoOutput(repos: { users: UserRepository; history: HistoryRepository }): Promise<{ userId: string; outputId: string }> {
  const userId = await addUser(repos.users);
  const item = historyItem(userId, randomUUID(), { mimeType: 'video/mp4', fileName: 'clip.mp4' });
  await repos.history.add(item);
  return { userId, outputId: item.id };
}

export const newPublication = (outputId: string, userId: string, over: Partial<Publication> = {}): Publication => ({
  outputId,
  userId,
  platform: 'YOUTUBE',
  status: 'pending',
  attemptId: randomUUID(),
  title: 'Clip',
  description: 'ünïcødé ✓',
  privacy: 'private',
  url: null,
  error: null,
  remoteRef: null,
  createdAt: at(0),
  updatedAt: at(0),
  ...over,
});

export const newConnection = (userId: string, over: Partial<SocialConnection> = {}): Omit<SocialConnection, 'version'> => ({
  userId,
  platform: 'YOUTUBE',
  accessToken: 'v1.k.sealed-access',
  refreshToken: 'v1.k.sealed-refresh',
  expiresAt: at(3600_000),
  accountId: 'channel-1',
  scope: 'https://www.googleapis.com/auth/youtube.upload',
  createdAt: at(0),
  updatedAt: at(0),
  ...over,
});
