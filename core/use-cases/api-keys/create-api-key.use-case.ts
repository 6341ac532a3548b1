import { API_KEY_SCOPES, composeApiKey, type ApiKey, type ApiKeyScope } from '../../domain/api-key.ts';
import { fail, ok, validationFailed, type FieldProblem, type Result } from '../../domain/result.ts';
import type { User } from '../../domain/user.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { IdGenerator } from '../../ports/id-generator.port.ts';
import type { TokenIssuer } from '../../ports/token-issuer.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';

export interface CreateApiKeyInput {
  /** The signed-in user as stored now (a session, never a key: the HTTP layer refuses keys here). */
  user: User;
  name: unknown;
  scopes: unknown;
  expiresAt?: unknown;
}

export interface CreateApiKeyDeps {
  uow: UnitOfWork;
  ids: IdGenerator;
  clock: Clock;
  tokens: Pick<TokenIssuer, 'newOpaqueToken' | 'hashOpaqueToken'>;
}

const NAME_MAX = 64;

function check(input: CreateApiKeyInput, now: Date): Result<{ name: string; scopes: ApiKeyScope[]; expiresAt: Date | null }> {
  const problems: FieldProblem[] = [];
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  if (name.length === 0 || name.length > NAME_MAX) problems.push({ field: 'name', message: `must be a string of 1 to ${NAME_MAX} characters` });
  const scopes = Array.isArray(input.scopes) ? input.scopes : [];
  const known = scopes.every((scope) => (API_KEY_SCOPES as readonly unknown[]).includes(scope));
  if (scopes.length === 0 || !known || new Set(scopes).size !== scopes.length) {
    problems.push({ field: 'scopes', message: `must be a non-empty list of distinct scopes from ${API_KEY_SCOPES.join(', ')}` });
  }
  let expiresAt: Date | null = null;
  if (input.expiresAt !== undefined && input.expiresAt !== null) {
    expiresAt = typeof input.expiresAt === 'string' ? new Date(input.expiresAt) : new Date(NaN);
    if (Number.isNaN(expiresAt.getTime()) || expiresAt.getTime() <= now.getTime()) problems.push({ field: 'expiresAt', message: 'must be an ISO-8601 time in the future' });
  }
  return problems.length > 0 ? validationFailed(problems) : ok({ name, scopes: scopes as ApiKeyScope[], expiresAt });
}

/**
 * Mints an API key (ADR 035): the key is returned once and only its SHA-256 is stored, beside a short
 * non-secret prefix used to find it. Only an administrator may give a key the `admin` scope. The key and its
 * audit row commit together.
 */
export class CreateApiKey {
  constructor(private readonly deps: CreateApiKeyDeps) {}

  async execute(input: CreateApiKeyInput): Promise<Result<{ apiKey: ApiKey; key: string }>> {
    const { uow, ids, clock, tokens } = this.deps;
    const now = clock.now();
    const checked = check(input, now);
    if (!checked.ok) return checked;
    if (checked.value.scopes.includes('admin') && input.user.role !== 'admin') {
      return fail('AUTH.FORBIDDEN', 'Only an administrator may create a key with the admin scope');
    }
    const { key, prefix } = composeApiKey(tokens.newOpaqueToken(), tokens.newOpaqueToken());
    const apiKey: ApiKey = {
      id: ids.newId(),
      userId: input.user.id,
      ...checked.value,
      prefix,
      secretHash: tokens.hashOpaqueToken(key),
      createdAt: now,
      lastUsedAt: null,
      revokedAt: null,
    };
    await uow.run(async (tx) => {
      await tx.apiKeys.create(apiKey);
      await tx.audit.record({
        id: ids.newId(),
        actorId: input.user.id,
        action: 'api-key.create',
        targetUserId: input.user.id,
        details: { keyId: apiKey.id, name: apiKey.name, scopes: apiKey.scopes, prefix, expiresAt: apiKey.expiresAt?.toISOString() ?? null },
        createdAt: now,
      });
    });
    return ok({ apiKey, key });
  }
}
