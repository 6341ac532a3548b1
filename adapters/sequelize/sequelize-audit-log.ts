import { DataTypes, type Model, type Sequelize } from 'sequelize';
import type { AuditAction, AuditEntry } from '../../core/domain/audit.ts';
import { offsetOf, pageOf, type Page, type PageRequest } from '../../core/domain/pagination.ts';
import type { AuditLog } from '../../core/ports/audit-log.port.ts';
import { asRows, defineOnce, type RowModel } from './models.ts';
import type { SqlScope } from './sql-scope.ts';

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
  constructor(private readonly scope: SqlScope) {}

  async record(entry: AuditEntry): Promise<void> {
    const row: AuditRow = {
      id: entry.id,
      actor_id: entry.actorId,
      action: entry.action,
      target_user_id: entry.targetUserId,
      details: JSON.stringify(entry.details),
      created_at: entry.createdAt,
    };
    await this.scope.write((s) => auditModel(s.sequelize).create(row, s.options));
  }

  async list(request: PageRequest): Promise<Page<AuditEntry>> {
    const { rows, count } = await auditModel(this.scope.sequelize).findAndCountAll({
      order: [['created_at', 'DESC'], ['seq', 'DESC']],
      limit: request.limit,
      offset: offsetOf(request),
      raw: true,
      ...this.scope.options,
    });
    return pageOf(asRows<AuditRow>(rows).map(toEntry), request, count);
  }
}
