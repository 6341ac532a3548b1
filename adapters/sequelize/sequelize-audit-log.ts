import { DataTypes, type Model, type Sequelize } from 'sequelize';
import type { AuditAction, AuditEntry } from '../../core/domain/audit.ts';
import { offsetOf, pageOf, type Page, type PageRequest } from '../../core/domain/pagination.ts';
import type { AuditLog } from '../../core/ports/audit-log.port.ts';
import type { SequelizeDatabase } from './sequelize-database.ts';
import { asRows, defineOnce, type RowModel } from './models.ts';

interface AuditRow {
  seq?: number;
  id: string;
  actor_id: string;
  action: string;
  target_user_id: string | null;
  details: string;
  created_at: Date;
}

const auditModel = (sequelize: Sequelize): RowModel<AuditRow> =>
  defineOnce(sequelize, 'AuditLog', () =>
    sequelize.define<Model<AuditRow, AuditRow>>(
      'AuditLog',
      {
        seq: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
        id: { type: DataTypes.UUID, allowNull: false },
        actor_id: { type: DataTypes.UUID, allowNull: false },
        action: { type: DataTypes.STRING(64), allowNull: false },
        target_user_id: { type: DataTypes.UUID, allowNull: true },
        details: { type: DataTypes.TEXT, allowNull: false }, // LONGTEXT on MariaDB (the migration's); the model only reads and writes text
        created_at: { type: DataTypes.DATE(3), allowNull: false },
      },
      { tableName: 'audit_log' },
    ),
  );

const toEntry = (row: AuditRow): AuditEntry => ({
  id: row.id,
  actorId: row.actor_id,
  action: row.action as AuditAction,
  targetUserId: row.target_user_id,
  details: JSON.parse(row.details) as Record<string, unknown>,
  createdAt: new Date(row.created_at),
});

export class SequelizeAuditLog implements AuditLog {
  private readonly entries;

  constructor(private readonly db: SequelizeDatabase) {
    this.entries = auditModel(db.sequelize);
  }

  async record(entry: AuditEntry): Promise<void> {
    // Joins the caller's unit of work (the change being audited) when there is one.
    await this.db.run(() =>
      this.entries.create({
        id: entry.id,
        actor_id: entry.actorId,
        action: entry.action,
        target_user_id: entry.targetUserId,
        details: JSON.stringify(entry.details),
        created_at: entry.createdAt,
      }),
    );
  }

  async list(request: PageRequest): Promise<Page<AuditEntry>> {
    const { rows, count } = await this.entries.findAndCountAll({
      order: [['created_at', 'DESC'], ['seq', 'DESC']],
      limit: request.limit,
      offset: offsetOf(request),
      raw: true,
    });
    return pageOf(asRows<AuditRow>(rows).map(toEntry), request, count);
  }
}
