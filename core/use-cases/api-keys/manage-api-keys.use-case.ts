import type { ApiKey } from '../../domain/api-key.ts';
import { fail, ok, type Result } from '../../domain/result.ts';
import type { ApiKeyRepository } from '../../ports/api-key-repository.port.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { IdGenerator } from '../../ports/id-generator.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import type { SessionRevocations } from '../auth/session-revocations.service.ts';

/** The caller's live keys, newest first (hashes stay inside: the HTTP layer shows id, name, scopes, prefix and times). */
export class ListApiKeys {
  constructor(private readonly deps: { apiKeys: ApiKeyRepository }) {}

  execute(input: { userId: string }): Promise<ApiKey[]> {
    return this.deps.apiKeys.listByUser(input.userId);
  }
}

/**
 * Revokes one of the caller's keys with its audit row; someone else's key, or an unknown one, is NOT_FOUND. After
 * the commit, the WebSockets opened with the key are told to close (its HTTP requests are refused from then on).
 */
export class RevokeApiKey {
  constructor(private readonly deps: { uow: UnitOfWork; ids: IdGenerator; clock: Clock; revocations: Pick<SessionRevocations, 'keyRevoked'> }) {}

  async execute(input: { userId: string; keyId: string }): Promise<Result<ApiKey>> {
    const { uow, ids, clock } = this.deps;
    const now = clock.now();
    const revoked = await uow.run(async (tx) => {
      const key = await tx.apiKeys.revoke(input.keyId, input.userId, now);
      if (key) {
        await tx.audit.record({
          id: ids.newId(),
          actorId: input.userId,
          action: 'api-key.revoke',
          targetUserId: input.userId,
          details: { keyId: key.id, name: key.name, prefix: key.prefix },
          createdAt: now,
        });
      }
      return key;
    });
    if (!revoked) return fail('NOT_FOUND', 'No such API key');
    await this.deps.revocations.keyRevoked(input.userId, revoked.id);
    return ok(revoked);
  }
}
