import type { LoginCheck, RefreshTokenRecord, SessionRepository } from '../../core/ports/session-repository.port.ts';
import { asRow, sessionModel, type SessionRow, type UserRow } from './models.ts';
import { toUser } from './sequelize-user-repository.ts';
import { ReadBatcher } from './read-batcher.ts';
import { sqlTime, type SqlScope } from './sql-scope.ts';

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

interface LoginKey {
  userId: string;
  familyId: string | null;
}

const LOGIN_BATCH_MAX = 64;
const USER_COLUMNS = 'id, email, display_name, role, coin_balance, created_at, updated_at';
/** One key: the user's row if it exists, with `revoked` set when its family was revoked. */
const ONE_LOGIN_SQL = `SELECT ${USER_COLUMNS}, (SELECT 1 FROM refresh_sessions WHERE family_id = ? AND revoked_at IS NOT NULL LIMIT 1) AS revoked FROM users WHERE id = ? AND deleted_at IS NULL`;
const NULL_USER_COLUMNS = USER_COLUMNS.replace(/\w+/g, 'NULL');
const inLists = new Map<number, string>();
/** `(?, ?, ...)`: IN lists keep both dialects on the primary key and the family index whatever the table statistics. */
const inList = (count: number): string => {
  let list = inLists.get(count);
  if (!list) inLists.set(count, (list = `(${Array.from({ length: count }, () => '?').join(', ')})`));
  return list;
};

export class SequelizeSessionRepository implements SessionRepository {
  private batcher: ReadBatcher<LoginKey, LoginCheck> | null = null;

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

  async activeFamilies(userId: string, now: Date): Promise<string[]> {
    const rows = await this.scope.read<{ family_id: string }>(
      'SELECT DISTINCT family_id FROM refresh_sessions s WHERE user_id = ? AND expires_at > ? AND NOT EXISTS (SELECT 1 FROM refresh_sessions r WHERE r.family_id = s.family_id AND r.revoked_at IS NOT NULL)',
      [userId, sqlTime(now, this.scope.dialect)],
    );
    return rows.map((row) => row.family_id);
  }

  /**
   * On every authenticated request. Outside a transaction, concurrent checks share one statement
   * (`ReadBatcher`): one plain read on the users primary key and the family index per batch, which also
   * brings each user's current record (the profile, the role for admin routes).
   */
  async loginState(userId: string, familyId: string | null): Promise<LoginCheck> {
    if (this.scope.inTransaction) return (await this.loginStates([{ userId, familyId }]))[0]!;
    this.batcher ??= new ReadBatcher((keys) => this.loginStates(keys), { maxBatch: LOGIN_BATCH_MAX, concurrency: this.scope.dialect === 'sqlite' ? 1 : 2 });
    return this.batcher.load({ userId, familyId });
  }

  private async loginStates(keys: LoginKey[]): Promise<LoginCheck[]> {
    if (keys.length === 1) {
      const { userId, familyId } = keys[0]!;
      const [row] = await this.scope.read<UserRow & { revoked: number | string | null }>(ONE_LOGIN_SQL, [familyId, userId]);
      return [!row ? { state: 'no-user' } : row.revoked === null ? { state: 'active', user: toUser(row) } : { state: 'revoked' }];
    }
    // Several keys (a batch): the users and the revoked families in one statement of two indexed reads, made
    // after every key was asked for. One user may come with several logins.
    const userIds = [...new Set(keys.map((key) => key.userId))];
    const familyIds = [...new Set(keys.flatMap((key) => (key.familyId === null ? [] : [key.familyId])))];
    const rows = await this.scope.read<UserRow & { revoked_family: string | null }>(
      `SELECT ${USER_COLUMNS}, NULL AS revoked_family FROM users WHERE id IN ${inList(userIds.length)} AND deleted_at IS NULL` +
        (familyIds.length === 0
          ? ''
          : ` UNION ALL SELECT DISTINCT ${NULL_USER_COLUMNS}, family_id FROM refresh_sessions WHERE family_id IN ${inList(familyIds.length)} AND revoked_at IS NOT NULL`),
      [...userIds, ...familyIds],
    );
    const users = rows.filter((row) => row.revoked_family === null);
    const revokedFamilies = new Set(rows.flatMap((row) => (row.revoked_family === null ? [] : [row.revoked_family])));
    const byId = new Map(users.map((row) => [row.id, row]));
    return keys.map(({ userId, familyId }): LoginCheck => {
      const row = byId.get(userId);
      if (!row) return { state: 'no-user' };
      return familyId !== null && revokedFamilies.has(familyId) ? { state: 'revoked' } : { state: 'active', user: toUser(row) };
    });
  }
}
