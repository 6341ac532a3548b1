import type { LoginCheck, RefreshTokenRecord, SessionRepository } from '../../core/ports/session-repository.port.ts';
import { asRow, sessionModel, type SessionRow, type UserRow } from './models.ts';
import { toUser } from './sequelize-user-repository.ts';
import type { SqlScope } from './sql-scope.ts';

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
  constructor(private readonly scope: SqlScope) {}

  async create(session: Omit<RefreshTokenRecord, 'rotatedAt' | 'revokedAt'>): Promise<void> {
    const row: SessionRow = {
      id: session.id,
      user_id: session.userId,
      family_id: session.familyId,
      token_hash: session.tokenHash,
      expires_at: session.expiresAt,
      rotated_at: null,
      revoked_at: null,
      created_at: session.createdAt,
    };
    await this.scope.write((s) => sessionModel(s.sequelize).create(row, s.options));
  }

  async findByTokenHash(tokenHash: string): Promise<RefreshTokenRecord | null> {
    const row = await sessionModel(this.scope.sequelize).findOne({ where: { token_hash: tokenHash }, raw: true, ...this.scope.options });
    return row ? toSession(asRow<SessionRow>(row)) : null;
  }

  async markRotated(id: string, at: Date): Promise<boolean> {
    const [changed] = await this.scope.write((s) =>
      sessionModel(s.sequelize).update({ rotated_at: at }, { where: { id, rotated_at: null, revoked_at: null }, ...s.options }),
    );
    return changed === 1;
  }

  async revokeFamily(familyId: string, at: Date): Promise<void> {
    await this.scope.write((s) => sessionModel(s.sequelize).update({ revoked_at: at }, { where: { family_id: familyId, revoked_at: null }, ...s.options }));
  }

  async loginState(userId: string, familyId: string | null): Promise<LoginCheck> {
    // On every authenticated request: one plain read on the primary key and the family index, which also
    // brings the user's current record (the profile, the role for admin routes).
    const rows = await this.scope.read<UserRow & { revoked: number | string | null }>(
      'SELECT id, email, display_name, role, coin_balance, created_at, updated_at, ' +
        '(SELECT 1 FROM refresh_sessions WHERE family_id = ? AND revoked_at IS NOT NULL LIMIT 1) AS revoked FROM users WHERE id = ?',
      [familyId, userId],
    );
    const row = rows[0];
    if (!row) return { state: 'no-user' };
    return row.revoked === null ? { state: 'active', user: toUser(row) } : { state: 'revoked' };
  }
}
