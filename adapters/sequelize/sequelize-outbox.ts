import { DataTypes, Op, type Model } from 'sequelize';
import type { Outbox, OutboxEntry } from '../../core/ports/outbox.port.ts';
import type { OutgoingMessage } from '../../core/ports/queue.port.ts';
import { afterCommit } from './after-commit.ts';
import { asRows, defineOnce, type RowModel } from './models.ts';
import type { SequelizeDatabase } from './sequelize-database.ts';

export interface OutboxRow {
  id: string;
  message: string;
  created_at: Date;
  published_at: Date | null;
}

export const outboxModel = (sequelize: SequelizeDatabase['sequelize']): RowModel<OutboxRow> =>
  defineOnce(sequelize, 'OutboxEntry', () =>
    sequelize.define<Model<OutboxRow, OutboxRow>>(
      'OutboxEntry',
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        message: { type: DataTypes.TEXT, allowNull: false },
        created_at: { type: DataTypes.DATE(3), allowNull: false },
        published_at: { type: DataTypes.DATE(3), allowNull: true },
      },
      { tableName: 'outbox' },
    ),
  );

/**
 * The outbox table. `add` joins the ambient unit of work; notifications wait for that unit of work
 * to commit, so the relay never wakes up before the entry is visible to it.
 */
export class SequelizeOutbox implements Outbox {
  private readonly model: RowModel<OutboxRow>;
  private readonly listeners = new Set<() => void>();

  constructor(db: SequelizeDatabase) {
    this.model = outboxModel(db.sequelize);
  }

  async add(entry: OutboxEntry): Promise<void> {
    await this.model.create({ id: entry.id, message: JSON.stringify(entry.message), created_at: entry.createdAt, published_at: null });
    this.notify();
  }

  async pending(max: number): Promise<OutboxEntry[]> {
    const rows = await this.model.findAll({
      where: { published_at: null },
      order: [
        ['created_at', 'ASC'],
        ['id', 'ASC'],
      ],
      limit: Math.max(0, max),
      raw: true,
    });
    return asRows<OutboxRow>(rows).map((row) => ({
      id: row.id,
      message: JSON.parse(row.message) as OutgoingMessage,
      createdAt: new Date(row.created_at),
    }));
  }

  async markPublished(id: string, at: Date): Promise<void> {
    await this.model.update({ published_at: at }, { where: { id, published_at: null } });
  }

  notify(): void {
    // A listener failing must not fail the caller's (already committed) unit of work.
    afterCommit(() => {
      for (const listener of this.listeners) {
        try {
          listener();
        } catch {
          // The relay's fallback poll still picks the entry up.
        }
      }
    });
  }

  onNotify(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async purgePublished(before: Date): Promise<number> {
    return this.model.destroy({ where: { published_at: { [Op.lt]: before } } });
  }
}
