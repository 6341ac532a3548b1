import { DataTypes, Op, QueryTypes, type Model, type Sequelize } from 'sequelize';
import type { StoredUserEvent, UserEvent, UserEventStore } from '../../core/ports/user-events.port.ts';
import { asRows, defineOnce, type RowModel } from './models.ts';
import type { Dialect, SqlScope } from './sql-scope.ts';

export interface UserEventRow {
  user_id: string;
  seq: number;
  payload: string;
  created_at: Date;
}

export const userEventModel = (sequelize: Sequelize): RowModel<UserEventRow> =>
  defineOnce(sequelize, 'UserEvent', () =>
    sequelize.define<Model<UserEventRow, UserEventRow>>(
      'UserEvent',
      {
        user_id: { type: DataTypes.UUID, primaryKey: true },
        seq: { type: DataTypes.INTEGER, primaryKey: true },
        payload: { type: DataTypes.TEXT, allowNull: false },
        created_at: { type: DataTypes.DATE(3), allowNull: false },
      },
      { tableName: 'user_events' },
    ),
  );

/**
 * Insert-or-increment of the user's counter, returning the new seq, in one statement where the dialect
 * allows: MariaDB's ON DUPLICATE KEY UPDATE with LAST_INSERT_ID(expr) hands the value back as the insert id;
 * SQLite's upsert is followed by a read of the row. Either way the row is created at 1 or bumped by one, and
 * stays locked (MariaDB) or the writer is held (SQLite) until commit, so one user's seqs commit in order.
 */
const BUMP_COUNTER: Record<Dialect, string> = {
  sqlite: 'INSERT INTO user_event_counters (user_id, seq) VALUES (:userId, :count) ON CONFLICT (user_id) DO UPDATE SET seq = seq + :count',
  mysql: 'INSERT INTO user_event_counters (user_id, seq) VALUES (:userId, LAST_INSERT_ID(:count)) ON DUPLICATE KEY UPDATE seq = LAST_INSERT_ID(seq + :count)',
};

/** Bumps the counter by `count` and returns its new value (the last of the seqs handed out). */
async function bumpSeq(s: SqlScope, userId: string, count: number): Promise<number> {
  if (s.dialect === 'sqlite' && s.inTransaction) {
    // One statement for every event but a user's first: the transaction holds SQLite's only write lock, so no other
    // writer can create the row between this update finding none and the upsert below.
    const [bumped] = await s.read<{ seq: number }>('UPDATE user_event_counters SET seq = seq + ? WHERE user_id = ? RETURNING seq', [count, userId]);
    if (bumped) return Number(bumped.seq);
  }
  const bumped = await s.sequelize.query(BUMP_COUNTER[s.dialect], { replacements: { userId, count }, type: QueryTypes.INSERT, ...s.options });
  if (s.dialect === 'mysql') return Number((bumped as unknown as [number, number])[0]);
  const [counter] = await s.sequelize.query<{ seq: number }>('SELECT seq FROM user_event_counters WHERE user_id = ?', {
    replacements: [userId],
    type: QueryTypes.SELECT,
    ...s.options,
  });
  if (!counter) throw new Error(`user event counter missing after upsert for ${userId}`);
  return Number(counter.seq);
}

const toStored = (row: UserEventRow): StoredUserEvent => ({
  userId: row.user_id,
  seq: Number(row.seq),
  event: JSON.parse(row.payload) as UserEvent,
  createdAt: new Date(row.created_at),
});

export class SequelizeUserEventStore implements UserEventStore {
  constructor(private readonly scope: SqlScope) {}

  async append(userId: string, event: UserEvent, at: Date): Promise<StoredUserEvent> {
    return (await this.appendAll(userId, [event], at))[0]!;
  }

  appendAll(userId: string, events: readonly UserEvent[], at: Date): Promise<StoredUserEvent[]> {
    if (events.length === 0) return Promise.resolve([]);
    return this.scope.atomic(async (s) => {
      const last = await bumpSeq(s, userId, events.length);
      const first = last - events.length + 1;
      const rows = events.map((event, i): UserEventRow => ({ user_id: userId, seq: first + i, payload: JSON.stringify(event), created_at: at }));
      // A plain statement (`run`): this is written with every move of every job.
      const values = rows.map(() => '(?, ?, ?, ?)').join(', ');
      await s.run(`INSERT INTO user_events (user_id, seq, payload, created_at) VALUES ${values}`, rows.flatMap((row) => [row.user_id, row.seq, row.payload, row.created_at]));
      return rows.map(toStored);
    });
  }

  async listSince(userId: string, since: number, max: number): Promise<StoredUserEvent[]> {
    if (max <= 0) return [];
    const rows = await userEventModel(this.scope.sequelize).findAll({
      where: { user_id: userId, seq: { [Op.gt]: since } },
      order: [['seq', 'ASC']],
      limit: max,
      raw: true,
      ...this.scope.options,
    });
    return asRows<UserEventRow>(rows).map(toStored);
  }

  async purgeBefore(before: Date): Promise<number> {
    return this.scope.write((s) => userEventModel(s.sequelize).destroy({ where: { created_at: { [Op.lt]: before } }, ...s.options }));
  }
}
