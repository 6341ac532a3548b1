import { DataTypes, Op, QueryTypes, type Model } from 'sequelize';
import type { StoredUserEvent, UserEvent, UserEventStore } from '../../core/ports/user-events.port.ts';
import { asRows, defineOnce, type RowModel } from './models.ts';
import type { SequelizeDatabase } from './sequelize-database.ts';

export interface UserEventRow {
  user_id: string;
  seq: number;
  payload: string;
  created_at: Date;
}

export const userEventModel = (db: SequelizeDatabase): RowModel<UserEventRow> =>
  defineOnce(db.sequelize, 'UserEvent', () =>
    db.sequelize.define<Model<UserEventRow, UserEventRow>>(
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
 * Insert-or-increment of the user's counter in one statement. The syntax differs (SQLite's upsert
 * vs MariaDB's ON DUPLICATE KEY) but the behaviour is the same on both: the row is created at 1 or
 * bumped by one, and on MariaDB the row stays X-locked until commit, so concurrent appends of one
 * user queue behind each other and commit in seq order (a reader never sees seq n+1 without n).
 */
const BUMP_COUNTER: Record<SequelizeDatabase['dialect'], string> = {
  sqlite: 'INSERT INTO user_event_counters (user_id, seq) VALUES (?, 1) ON CONFLICT (user_id) DO UPDATE SET seq = seq + 1',
  mysql: 'INSERT INTO user_event_counters (user_id, seq) VALUES (?, 1) ON DUPLICATE KEY UPDATE seq = seq + 1',
};

const toStored = (row: UserEventRow): StoredUserEvent => ({
  userId: row.user_id,
  seq: Number(row.seq),
  event: JSON.parse(row.payload) as UserEvent,
  createdAt: new Date(row.created_at),
});

export class SequelizeUserEventStore implements UserEventStore {
  private readonly events;

  constructor(private readonly db: SequelizeDatabase) {
    this.events = userEventModel(db);
  }

  append(userId: string, event: UserEvent, at: Date): Promise<StoredUserEvent> {
    return this.db.run(async () => {
      await this.db.sequelize.query(BUMP_COUNTER[this.db.dialect], { replacements: [userId], type: QueryTypes.INSERT });
      const [counter] = await this.db.sequelize.query<{ seq: number }>('SELECT seq FROM user_event_counters WHERE user_id = ?', {
        replacements: [userId],
        type: QueryTypes.SELECT,
      });
      if (!counter) throw new Error(`user event counter missing after upsert for ${userId}`);
      const row: UserEventRow = { user_id: userId, seq: Number(counter.seq), payload: JSON.stringify(event), created_at: at };
      await this.events.create(row);
      return toStored(row);
    });
  }

  async listSince(userId: string, since: number, max: number): Promise<StoredUserEvent[]> {
    if (max <= 0) return [];
    const rows = await this.events.findAll({
      where: { user_id: userId, seq: { [Op.gt]: since } },
      order: [['seq', 'ASC']],
      limit: max,
      raw: true,
    });
    return asRows<UserEventRow>(rows).map(toStored);
  }

  async purgeBefore(before: Date): Promise<number> {
    return this.events.destroy({ where: { created_at: { [Op.lt]: before } } });
  }
}
