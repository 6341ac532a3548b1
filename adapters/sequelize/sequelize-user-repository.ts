import { Op, Sequelize, type WhereOptions } from 'sequelize';
import type { Page, PageRequest } from '../../core/domain/pagination.ts';
import { offsetOf, pageOf, rowCount } from '../../core/domain/pagination.ts';
import { DELETED_DISPLAY_NAME, deletedEmail, type User, type UserRole } from '../../core/domain/user.ts';
import type { NewUser, UserRepository } from '../../core/ports/user-repository.port.ts';
import { asRow, asRows, userModel, type UserRow } from './models.ts';
import { isUniqueViolation, type SqlScope } from './sql-scope.ts';

export const toUser = (row: UserRow): User => ({
  id: row.id,
  email: row.email,
  displayName: row.display_name,
  role: row.role === 'admin' ? 'admin' : 'user',
  coinBalance: Number(row.coin_balance),
  createdAt: new Date(row.created_at),
  updatedAt: new Date(row.updated_at),
});

const PUBLIC_ATTRIBUTES = ['id', 'email', 'display_name', 'role', 'coin_balance', 'created_at', 'updated_at'];
const CREDENTIAL_ATTRIBUTES = [...PUBLIC_ATTRIBUTES, 'password_hash'];

export class SequelizeUserRepository implements UserRepository {
  constructor(private readonly scope: SqlScope) {}

  private get users() {
    return userModel(this.scope.sequelize);
  }

  async create(user: NewUser): Promise<boolean> {
    const row: UserRow = {
      id: user.id,
      email: user.email,
      display_name: user.displayName,
      role: user.role,
      coin_balance: 0,
      password_hash: user.passwordHash,
      created_at: user.createdAt,
      updated_at: user.createdAt,
    };
    try {
      await this.scope.write((s) => userModel(s.sequelize).create(row, s.options));
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  /** Read on every authenticated request (profile, admin checks): a plain read (`SqlScope.read`). */
  async findById(id: string): Promise<User | null> {
    const rows = await this.scope.read<UserRow>('SELECT id, email, display_name, role, coin_balance, created_at, updated_at FROM users WHERE id = ? AND deleted_at IS NULL', [id]);
    return rows[0] ? toUser(rows[0]) : null;
  }

  async findByEmail(email: string): Promise<(User & { passwordHash: string | null }) | null> {
    const row = asRow<UserRow | null>(await this.users.findOne({ where: { email, deleted_at: null }, attributes: CREDENTIAL_ATTRIBUTES, raw: true, ...this.scope.options }));
    return row ? { ...toUser(row), passwordHash: row.password_hash } : null;
  }

  async setRole(id: string, role: UserRole, at: Date): Promise<void> {
    await this.scope.write((s) => userModel(s.sequelize).update({ role, updated_at: at }, { where: { id }, ...s.options }));
  }

  async setDisplayName(id: string, displayName: string, at: Date): Promise<User | null> {
    await this.scope.write((s) => userModel(s.sequelize).update({ display_name: displayName, updated_at: at }, { where: { id, deleted_at: null }, ...s.options }));
    return this.findById(id);
  }

  async setPasswordHash(id: string, passwordHash: string, previousHash: string, at: Date): Promise<boolean> {
    const [changed] = await this.scope.write((s) =>
      userModel(s.sequelize).update(
        { password_hash: passwordHash, password_reset_hash: null, password_reset_expires_at: null, pending_email: null, email_change_hash: null, email_change_expires_at: null, updated_at: at },
        { where: { id, password_hash: previousHash }, ...s.options },
      ),
    );
    return changed === 1;
  }

  async setPasswordReset(id: string, reset: { tokenHash: string; expiresAt: Date }, at: Date): Promise<boolean> {
    const [changed] = await this.scope.write((s) =>
      userModel(s.sequelize).update({ password_reset_hash: reset.tokenHash, password_reset_expires_at: reset.expiresAt, updated_at: at }, { where: { id, deleted_at: null }, ...s.options }),
    );
    return changed === 1;
  }

  async findByPasswordReset(tokenHash: string, now: Date): Promise<User | null> {
    const row = asRow<UserRow | null>(
      await this.users.findOne({ where: { password_reset_hash: tokenHash, password_reset_expires_at: { [Op.gt]: now } }, attributes: PUBLIC_ATTRIBUTES, raw: true, ...this.scope.options }),
    );
    return row ? toUser(row) : null;
  }

  async resetPassword(id: string, tokenHash: string, passwordHash: string, at: Date): Promise<boolean> {
    const [changed] = await this.scope.write((s) =>
      userModel(s.sequelize).update(
        { password_hash: passwordHash, password_reset_hash: null, password_reset_expires_at: null, pending_email: null, email_change_hash: null, email_change_expires_at: null, updated_at: at },
        { where: { id, password_reset_hash: tokenHash, password_reset_expires_at: { [Op.gt]: at } }, ...s.options },
      ),
    );
    return changed === 1;
  }

  async setEmailChange(id: string, change: { email: string; tokenHash: string; expiresAt: Date }, at: Date): Promise<boolean> {
    const [changed] = await this.scope.write((s) =>
      userModel(s.sequelize).update(
        { pending_email: change.email, email_change_hash: change.tokenHash, email_change_expires_at: change.expiresAt, updated_at: at },
        { where: { id, deleted_at: null }, ...s.options },
      ),
    );
    return changed === 1;
  }

  async findByEmailChange(tokenHash: string, now: Date): Promise<{ user: User; newEmail: string } | null> {
    const row = asRow<UserRow | null>(
      await this.users.findOne({
        where: { email_change_hash: tokenHash, email_change_expires_at: { [Op.gt]: now }, deleted_at: null },
        attributes: [...PUBLIC_ATTRIBUTES, 'pending_email'],
        raw: true,
        ...this.scope.options,
      }),
    );
    return row?.pending_email ? { user: toUser(row), newEmail: row.pending_email } : null;
  }

  async applyEmailChange(id: string, { tokenHash, newEmail }: { tokenHash: string; newEmail: string }, at: Date): Promise<'changed' | 'taken' | 'dead'> {
    // The new email is written as a value, not copied from pending_email in the same SET: MariaDB assigns left to right,
    // each assignment seeing the ones before it, where SQLite sees the row as it was.
    try {
      const [changed] = await this.scope.write((s) =>
        userModel(s.sequelize).update(
          // A reset link mailed to the old address dies with it.
          { email: newEmail, pending_email: null, email_change_hash: null, email_change_expires_at: null, password_reset_hash: null, password_reset_expires_at: null, updated_at: at },
          { where: { id, email_change_hash: tokenHash, pending_email: newEmail, email_change_expires_at: { [Op.gt]: at }, deleted_at: null }, ...s.options },
        ),
      );
      return changed === 1 ? 'changed' : 'dead';
    } catch (error) {
      if (isUniqueViolation(error)) return 'taken';
      throw error;
    }
  }

  async clearEmailChange(id: string, tokenHash: string, at: Date): Promise<boolean> {
    const [changed] = await this.scope.write((s) =>
      userModel(s.sequelize).update({ pending_email: null, email_change_hash: null, email_change_expires_at: null, updated_at: at }, { where: { id, email_change_hash: tokenHash }, ...s.options }),
    );
    return changed === 1;
  }

  async list(request: PageRequest, query?: string): Promise<Page<User>> {
    // The search text is literal: `%`, `_` and `\` are escaped, and the escape character is declared, since
    // SQLite's LIKE has none by default (MariaDB's is the backslash).
    const like = (column: string, text: string) =>
      Sequelize.where(Sequelize.col(column), Op.like, Sequelize.literal(`${this.scope.sequelize.escape(`%${escapeLike(text)}%`)} ESCAPE ${this.scope.sequelize.escape('\\')}`));
    const where: WhereOptions<UserRow> = query ? { deleted_at: null, [Op.or]: [like('email', query.toLowerCase()), like('display_name', query)] } : { deleted_at: null };
    const { rows, count } = await this.users.findAndCountAll({
      where,
      attributes: PUBLIC_ATTRIBUTES,
      order: [['created_at', 'DESC'], ['id', 'ASC']],
      limit: request.limit,
      offset: offsetOf(request),
      raw: true,
      ...this.scope.options,
    });
    return pageOf(asRows<UserRow>(rows).map(toUser), request, count);
  }

  async markDeleted(id: string, at: Date): Promise<boolean> {
    const changed = await this.scope.run(
      `UPDATE users SET deleted_at = ?, email = ?, display_name = ?, password_hash = NULL, password_reset_hash = NULL, password_reset_expires_at = NULL,
         pending_email = NULL, email_change_hash = NULL, email_change_expires_at = NULL, updated_at = ? WHERE id = ? AND deleted_at IS NULL`,
      [at, deletedEmail(id), DELETED_DISPLAY_NAME, at, id],
    );
    return changed === 1;
  }

  async listDeleted(max: number): Promise<string[]> {
    const rows = await this.scope.read<{ id: string }>(`SELECT id FROM users WHERE deleted_at IS NOT NULL ORDER BY deleted_at ASC, id ASC LIMIT ${rowCount(max)}`, []);
    return rows.map((row) => row.id);
  }

  async purge(id: string): Promise<boolean> {
    const changed = await this.scope.run(
      `DELETE FROM users WHERE id = ? AND deleted_at IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM history_items WHERE user_id = ?)
         AND NOT EXISTS (SELECT 1 FROM uploads WHERE user_id = ?)
         AND NOT EXISTS (SELECT 1 FROM generation_jobs WHERE user_id = ? AND status IN ('queued', 'running'))`,
      [id, id, id, id],
    );
    return changed === 1;
  }
}

const escapeLike = (text: string): string => text.replace(/[\\%_]/g, (char) => `\\${char}`);
