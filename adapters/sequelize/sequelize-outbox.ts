import { DataTypes, Op, type Model, type Sequelize } from 'sequelize';
import type { Outbox, OutboxEntry, OutboxLease } from '../../core/ports/outbox.port.ts';
import type { OutgoingMessage } from '../../core/ports/queue.port.ts';
import { defineOnce, type RowModel } from './models.ts';
import { selectRows, sqlTime, type SqlScope } from './sql-scope.ts';

export interface OutboxRow {
  id: string;
  message: string;
  created_at: Date;
  published_at: Date | null;
  lease_token: string | null;
  lease_until: Date | null;
}

export const outboxModel = (sequelize: Sequelize): RowModel<OutboxRow> =>
  defineOnce(sequelize, 'OutboxEntry', () =>
    sequelize.define<Model<OutboxRow, OutboxRow>>(
      'OutboxEntry',
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        message: { type: DataTypes.TEXT, allowNull: false },
        created_at: { type: DataTypes.DATE(3), allowNull: false },
        published_at: { type: DataTypes.DATE(3), allowNull: true },
        lease_token: { type: DataTypes.STRING(36), allowNull: true },
        lease_until: { type: DataTypes.DATE(3), allowNull: true },
      },
      { tableName: 'outbox' },
    ),
  );

/** The relays of this process that want to hear of committed entries: one per process, shared by every scope. */
export class OutboxSignal {
  private readonly listeners = new Set<() => void>();

  on(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  notify(): void {
    for (const listener of this.listeners) {
      try {
        listener();
      } catch {
        // The relay's fallback poll still picks the entry up.
      }
    }
  }
}

const free = (now: Date) => ({ published_at: null, [Op.or]: [{ lease_until: null }, { lease_until: { [Op.lte]: now } }] });

/**
 * The outbox table. `add` writes in the caller's transaction and wakes this process's relays once it
 * commits; `lease` hands entries to one relay at a time, so two relays never publish one entry together.
 */
export class SequelizeOutbox implements Outbox {
  constructor(
    private readonly scope: SqlScope,
    private readonly signal: OutboxSignal,
  ) {}

  async add(entry: OutboxEntry): Promise<void> {
    const row: OutboxRow = { id: entry.id, message: JSON.stringify(entry.message), created_at: entry.createdAt, published_at: null, lease_token: null, lease_until: null };
    await this.scope.write((s) => outboxModel(s.sequelize).create(row, s.options));
    this.scope.afterCommit(() => this.signal.notify());
  }

  /** Runs after every commit that adds an entry, and once more to find the outbox empty: plain SELECTs (see `selectRows`). */
  async lease(max: number, lease: OutboxLease, now: Date): Promise<OutboxEntry[]> {
    const candidates = await selectRows<Pick<OutboxRow, 'id'>>(
      this.scope,
      `SELECT id FROM outbox WHERE published_at IS NULL AND (lease_until IS NULL OR lease_until <= :now) ORDER BY created_at ASC, id ASC LIMIT ${Math.max(0, Math.trunc(max))}`,
      { now: sqlTime(now, this.scope.dialect) },
    );
    if (candidates.length === 0) return [];
    // The conditional update is the claim: a candidate another relay leased meanwhile is not ours.
    await this.scope.write((s) =>
      outboxModel(s.sequelize).update(
        { lease_token: lease.token, lease_until: lease.until },
        { where: { id: { [Op.in]: candidates.map((row) => row.id) }, ...free(now) }, ...s.options },
      ),
    );
    const rows = await selectRows<Pick<OutboxRow, 'id' | 'message' | 'created_at'>>(
      this.scope,
      'SELECT id, message, created_at FROM outbox WHERE lease_token = :token AND published_at IS NULL ORDER BY created_at ASC, id ASC',
      { token: lease.token },
    );
    return rows.map((row) => ({ id: row.id, message: JSON.parse(row.message) as OutgoingMessage, createdAt: new Date(row.created_at) }));
  }

  async markPublished(id: string, token: string, at: Date): Promise<boolean> {
    const [changed] = await this.scope.write((s) =>
      outboxModel(s.sequelize).update({ published_at: at }, { where: { id, lease_token: token, published_at: null }, ...s.options }),
    );
    return changed === 1;
  }

  onNotify(listener: () => void): () => void {
    return this.signal.on(listener);
  }

  async purgePublished(before: Date): Promise<number> {
    return this.scope.write((s) => outboxModel(s.sequelize).destroy({ where: { published_at: { [Op.lt]: before } }, ...s.options }));
  }
}
