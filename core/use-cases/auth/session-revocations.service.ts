import { apiKeySessionId } from '../../domain/api-key.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { Logger } from '../../ports/logger.port.ts';
import type { SessionRepository } from '../../ports/session-repository.port.ts';
import type { Transaction } from '../../ports/unit-of-work.port.ts';
import { SESSION_CHANNEL, type EventBus, type SessionRevoked } from '../../ports/user-events.port.ts';

export interface SessionRevocationsDeps {
  sessions: SessionRepository;
  bus: EventBus;
  clock: Clock;
  logger: Logger;
}

/**
 * Ends a login everywhere: its refresh tokens stop working, and every API instance closes the sockets
 * opened with its access tokens (SESSION_CHANNEL).
 */
export class SessionRevocations {
  constructor(private readonly deps: SessionRevocationsDeps) {}

  async revokeFamily(userId: string, familyId: string): Promise<void> {
    await this.revokeTokens(this.deps.sessions, familyId);
    await this.announce({ type: 'session.revoked', userId, sessionId: familyId });
  }

  /**
   * Ends every login of the user but `keep` (a password change keeps the login that made it; a reset keeps none), in
   * the caller's transaction: with the password change that calls for it, both commit or neither does. Their sockets
   * close once it commits. Returns how many ended. API keys are not logins: they stay, listed on the API keys page.
   */
  async endOtherLogins(tx: Transaction, userId: string, keep: string | null): Promise<number> {
    const { clock } = this.deps;
    const families = (await tx.sessions.activeFamilies(userId, clock.now())).filter((family) => family !== keep);
    for (const family of families) {
      await this.revokeTokens(tx.sessions, family);
      tx.afterCommit(() => this.announce({ type: 'session.revoked', userId, sessionId: family }));
    }
    return families.length;
  }

  /** Every token of the login, through `sessions` (autocommit, or the caller's transaction). */
  private async revokeTokens(sessions: SessionRepository, familyId: string): Promise<void> {
    await sessions.revokeFamily(familyId, this.deps.clock.now());
    // A rotation of this family that held one of its tokens while the first statement ran has committed by
    // the time that statement returns; the second one catches the token that rotation issued.
    await sessions.revokeFamily(familyId, this.deps.clock.now());
  }

  /** A revoked API key: every socket opened with it closes, on every API instance (its requests already fail). */
  async keyRevoked(userId: string, keyId: string): Promise<void> {
    await this.announce({ type: 'session.revoked', userId, sessionId: apiKeySessionId(keyId) });
  }

  private async announce(notice: SessionRevoked): Promise<void> {
    await this.deps.bus
      .publish(SESSION_CHANNEL, notice)
      .catch((error: unknown) => this.deps.logger.warn('session revocation not announced; sockets close when their token expires', { userId: notice.userId, error: String(error) }));
  }
}
