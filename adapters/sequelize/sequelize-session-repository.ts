import type { RefreshTokenRecord, SessionRepository } from '../../core/ports/session-repository.port.ts';
import type { SequelizeDatabase } from './sequelize-database.ts';
import { asRow, sessionModel, type SessionRow } from './models.ts';

const toSession = (row: SessionRow): RefreshTokenRecord => ({
  id: row.id,
  userId: row.user_id,
  familyId: row.family_id,
  tokenHash: row.token_hash,
  expiresAt: new Date(row.expires_at),
  rotatedAt: row.rotated_at ? new Date(row.rotated_at) : null,
  revokedAt: row.revoked_at ? new Date(row.revoked_at) : null,
  createdAt: new Date(row.created_at),
});

export class SequelizeSessionRepository implements SessionRepository {
  private readonly sessions;

  constructor(db: SequelizeDatabase) {
    this.sessions = sessionModel(db.sequelize);
  }

  async create(session: Omit<RefreshTokenRecord, 'rotatedAt' | 'revokedAt'>): Promise<void> {
    await this.sessions.create({
      id: session.id,
      user_id: session.userId,
      family_id: session.familyId,
      token_hash: session.tokenHash,
      expires_at: session.expiresAt,
      rotated_at: null,
      revoked_at: null,
      created_at: session.createdAt,
    });
  }

  async findByTokenHash(tokenHash: string): Promise<RefreshTokenRecord | null> {
    const row = await this.sessions.findOne({ where: { token_hash: tokenHash }, raw: true });
    return row ? toSession(asRow<SessionRow>(row)) : null;
  }

  async markRotated(id: string, at: Date): Promise<boolean> {
    const [changed] = await this.sessions.update({ rotated_at: at }, { where: { id, rotated_at: null, revoked_at: null } });
    return changed === 1;
  }

  async revokeFamily(familyId: string, at: Date): Promise<void> {
    await this.sessions.update({ revoked_at: at }, { where: { family_id: familyId, revoked_at: null } });
  }
}
