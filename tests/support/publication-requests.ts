import { randomUUID } from 'node:crypto';
import test from 'ava';
import { SystemClock } from '../../adapters/system/system-clock.ts';
import type { SocialPlatformClient } from '../../core/ports/social-platform.port.ts';
import { RequestPublication } from '../../core/use-cases/social/request-publication.use-case.ts';
import { addUser, historyItem } from '../contract/fixtures.ts';
import { openBackend, type Backend } from './backends.ts';
import type { TestDatabase } from './databases.ts';

/** One backend per database for the whole test file, opened on first use and closed after its last test. */
export function backendPerDatabase(): (db: TestDatabase) => Promise<Backend> {
  const backends = new Map<TestDatabase, Promise<Backend>>();
  test.after.always(async () => {
    for (const opened of backends.values()) await (await opened.catch(() => null))?.dispose();
  });
  return (db) => {
    if (!backends.has(db)) backends.set(db, openBackend(db));
    return backends.get(db)!;
  };
}

export interface RequesterOptions {
  mimeType?: string;
  fileName?: string;
  sizeBytes?: number;
  /** The platforms the user has connected (both by default); YouTube and TikTok are configured either way. */
  connected?: ('YOUTUBE' | 'TIKTOK')[];
}

/**
 * The publish-request use case over `backend`, for a new user with one stored output: `ask` sends a request body (as
 * that user, for that output, unless told), `queued` reads the outbox entries for that output.
 */
export async function publicationRequester(backend: Backend, options: RequesterOptions = {}) {
  const clock = new SystemClock();
  const userId = await addUser(backend.repos.users);
  const item = historyItem(userId, randomUUID(), { mimeType: options.mimeType ?? 'video/mp4', fileName: options.fileName ?? 'clip.mp4', sizeBytes: options.sizeBytes ?? 1000 });
  await backend.repos.history.add(item);
  for (const platform of options.connected ?? (['YOUTUBE', 'TIKTOK'] as const)) {
    await backend.repos.connections.save({ userId, platform, accessToken: 'v1.k.a', refreshToken: null, expiresAt: null, accountId: null, scope: null, createdAt: clock.now(), updatedAt: clock.now() });
  }
  const request = new RequestPublication({
    uow: backend.uow,
    history: backend.repos.history,
    connections: backend.repos.connections,
    platforms: { get: (platform) => ({ platform }) as SocialPlatformClient, configured: () => ['YOUTUBE', 'TIKTOK'] },
    ids: { newId: () => randomUUID() },
    clock,
    environment: 'local',
  });
  const queued = async () =>
    (await backend.outbox.lease(1000, { token: randomUUID(), until: new Date(Date.now() + 60_000) }, new Date())).filter((entry) => (entry.message.body as { outputId?: string }).outputId === item.id);
  const ask = (body: unknown, as: { userId?: string; outputId?: string } = {}) => request.execute({ userId: as.userId ?? userId, outputId: as.outputId ?? item.id, body });
  return { backend, userId, item, ask, queued };
}
