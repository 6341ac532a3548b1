import { QueryTypes } from 'sequelize';
import type { ApiKey, ApiKeyScope } from '../../core/domain/api-key.ts';
import type { ApiKeyRepository } from '../../core/ports/api-key-repository.port.ts';
import { selectRows, sqlTime, type SqlScope } from './sql-scope.ts';

interface ApiKeyRow {
  id: string;
  user_id: string;
  name: string;
  scopes: string;
  prefix: string;
  secret_hash: string;
  created_at: Date | string;
  expires_at: Date | string | null;
  last_used_at: Date | string | null;
  revoked_at: Date | string | null;
}

const COLUMNS = 'id, user_id, name, scopes, prefix, secret_hash, created_at, expires_at, last_used_at, revoked_at';
const time = (value: Date | string | null): Date | null => (value === null ? null : new Date(value));

const toKey = (row: ApiKeyRow): ApiKey => ({
  id: row.id,
  userId: row.user_id,
  name: row.name,
  // Scopes are few and fixed: a comma list keeps the row readable without a JSON column on both dialects.
  scopes: row.scopes.split(',') as ApiKeyScope[],
  prefix: row.prefix,
  secretHash: row.secret_hash,
  createdAt: new Date(row.created_at),
  expiresAt: time(row.expires_at),
  lastUsedAt: time(row.last_used_at),
  revokedAt: time(row.revoked_at),
});

export class SequelizeApiKeyRepository implements ApiKeyRepository {
  constructor(private readonly scope: SqlScope) {}

  async create(key: ApiKey): Promise<void> {
    const at = (date: Date | null, dialect: SqlScope['dialect']) => (date === null ? null : sqlTime(date, dialect));
    await this.scope.write((s) =>
      s.sequelize.query(`INSERT INTO api_keys (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, {
        replacements: [key.id, key.userId, key.name, key.scopes.join(','), key.prefix, key.secretHash, sqlTime(key.createdAt, s.dialect), at(key.expiresAt, s.dialect), at(key.lastUsedAt, s.dialect), at(key.revokedAt, s.dialect)],
        type: QueryTypes.INSERT,
        ...s.options,
      }),
    );
  }

  async findByPrefix(prefix: string): Promise<ApiKey | null> {
    // Every request made with a key reads this: the plain driver, as the access-token check does (ADR 026).
    const [row] = await this.scope.read<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE prefix = ?`, [prefix]);
    return row ? toKey(row) : null;
  }

  async listByUser(userId: string): Promise<ApiKey[]> {
    const rows = await selectRows<ApiKeyRow>(this.scope, `SELECT ${COLUMNS} FROM api_keys WHERE user_id = :userId AND revoked_at IS NULL ORDER BY created_at DESC, id DESC`, { userId });
    return rows.map(toKey);
  }

  async revokeAllForUser(userId: string, at: Date): Promise<string[]> {
    return this.scope.atomic(async (s) => {
      const live = await selectRows<{ id: string }>(s, 'SELECT id FROM api_keys WHERE user_id = :userId AND revoked_at IS NULL', { userId });
      await s.sequelize.query('UPDATE api_keys SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL', {
        replacements: [sqlTime(at, s.dialect), userId],
        type: QueryTypes.BULKUPDATE,
        ...s.options,
      });
      return live.map((row) => row.id);
    });
  }

  async revoke(id: string, userId: string, at: Date): Promise<ApiKey | null> {
    return this.scope.atomic(async (s) => {
      const changed = await s.sequelize.query('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND user_id = ? AND revoked_at IS NULL', {
        replacements: [sqlTime(at, s.dialect), id, userId],
        type: QueryTypes.BULKUPDATE,
        ...s.options,
      });
      if (Number(changed) !== 1) return null;
      const [row] = await selectRows<ApiKeyRow>(s, `SELECT ${COLUMNS} FROM api_keys WHERE id = :id`, { id });
      return row ? toKey(row) : null;
    });
  }

  async touch(id: string, at: Date, notBefore: Date): Promise<void> {
    await this.scope.write((s) =>
      s.sequelize.query('UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)', {
        replacements: [sqlTime(at, s.dialect), id, sqlTime(notBefore, s.dialect)],
        type: QueryTypes.BULKUPDATE,
        ...s.options,
      }),
    );
  }
}
