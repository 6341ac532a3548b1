import { DataTypes, Op, type Model, type Sequelize, type WhereOptions } from 'sequelize';
import type { ParameterMap } from '../../core/domain/parameter-map.ts';
import type { Category } from '../../core/domain/parameter-presets.ts';
import type { WorkflowGraph } from '../../core/domain/workflow-graph.types.ts';
import { templateNameKey, type OutputType, type TemplateVersion, type WorkflowTemplate } from '../../core/domain/workflow-template.ts';
import type { TemplateRepository, TemplateUpdateOutcome } from '../../core/ports/template-repository.port.ts';
import { asRow, asRows, defineOnce, type RowModel } from './models.ts';
import { isUniqueViolation, sqlIn, type SqlScope } from './sql-scope.ts';

interface TemplateRow {
  id: string;
  name: string;
  active_name: string | null;
  description: string | null;
  category: string;
  workflow: string;
  parameter_map: string;
  cost: number;
  output_type: string;
  is_active: boolean | number;
  published_at: Date | null;
  version: number;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

interface VersionRow {
  template_id: string;
  version: number;
  category: string;
  workflow: string;
  parameter_map: string;
  cost: number;
  output_type: string;
  created_at: Date;
}

const date = (allowNull = false) => ({ type: DataTypes.DATE(3), allowNull });
const jsonText = (sequelize: Sequelize) => ({ type: sequelize.getDialect() === 'mysql' ? DataTypes.TEXT : DataTypes.TEXT, allowNull: false });

const templateModel = (sequelize: Sequelize): RowModel<TemplateRow> =>
  defineOnce(sequelize, 'WorkflowTemplate', () =>
    sequelize.define<Model<TemplateRow, TemplateRow>>(
      'WorkflowTemplate',
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        name: { type: DataTypes.STRING(100), allowNull: false },
        active_name: { type: DataTypes.STRING(100).BINARY, allowNull: true },
        description: { type: DataTypes.TEXT, allowNull: true },
        category: { type: DataTypes.STRING(32), allowNull: false },
        workflow: jsonText(sequelize),
        parameter_map: jsonText(sequelize),
        cost: { type: DataTypes.INTEGER, allowNull: false },
        output_type: { type: DataTypes.STRING(16), allowNull: false },
        is_active: { type: DataTypes.BOOLEAN, allowNull: false },
        published_at: date(true),
        version: { type: DataTypes.INTEGER, allowNull: false },
        created_at: date(),
        updated_at: date(),
        deleted_at: date(true),
      },
      { tableName: 'templates' },
    ),
  );

const versionModel = (sequelize: Sequelize): RowModel<VersionRow> =>
  defineOnce(sequelize, 'WorkflowTemplateVersion', () =>
    sequelize.define<Model<VersionRow, VersionRow>>(
      'WorkflowTemplateVersion',
      {
        template_id: { type: DataTypes.UUID, primaryKey: true },
        version: { type: DataTypes.INTEGER, primaryKey: true },
        category: { type: DataTypes.STRING(32), allowNull: false },
        workflow: jsonText(sequelize),
        parameter_map: jsonText(sequelize),
        cost: { type: DataTypes.INTEGER, allowNull: false },
        output_type: { type: DataTypes.STRING(16), allowNull: false },
        created_at: date(),
      },
      { tableName: 'template_versions' },
    ),
  );

const toTemplate = (row: TemplateRow): WorkflowTemplate => ({
  id: row.id,
  name: row.name,
  description: row.description,
  category: row.category as Category,
  workflow: JSON.parse(row.workflow) as WorkflowGraph,
  parameterMap: JSON.parse(row.parameter_map) as ParameterMap,
  cost: Number(row.cost),
  outputType: row.output_type as OutputType,
  // SQLite and MariaDB hand booleans back as 0/1.
  isActive: Boolean(Number(row.is_active)),
  publishedAt: row.published_at ? new Date(row.published_at) : null,
  version: Number(row.version),
  createdAt: new Date(row.created_at),
  updatedAt: new Date(row.updated_at),
});

const toRow = (template: WorkflowTemplate): Omit<TemplateRow, 'deleted_at'> => ({
  id: template.id,
  name: template.name,
  active_name: templateNameKey(template.name),
  description: template.description,
  category: template.category,
  workflow: JSON.stringify(template.workflow),
  parameter_map: JSON.stringify(template.parameterMap),
  cost: template.cost,
  output_type: template.outputType,
  is_active: template.isActive,
  published_at: template.publishedAt,
  version: template.version,
  created_at: template.createdAt,
  updated_at: template.updatedAt,
});

const toVersionRow = (template: WorkflowTemplate): VersionRow => ({
  template_id: template.id,
  version: template.version,
  category: template.category,
  workflow: JSON.stringify(template.workflow),
  parameter_map: JSON.stringify(template.parameterMap),
  cost: template.cost,
  output_type: template.outputType,
  created_at: template.updatedAt,
});

export class SequelizeTemplateRepository implements TemplateRepository {
  constructor(private readonly scope: SqlScope) {}

  private get templates() {
    return templateModel(this.scope.sequelize);
  }

  private get versions() {
    return versionModel(this.scope.sequelize);
  }

  create(template: WorkflowTemplate): Promise<boolean> {
    return this.scope.atomic(async (s) => {
      try {
        await templateModel(s.sequelize).create({ ...toRow(template), deleted_at: null }, s.options);
      } catch (error) {
        if (isUniqueViolation(error)) return false;
        throw error;
      }
      await versionModel(s.sequelize).create(toVersionRow(template), s.options);
      return true;
    });
  }

  async findById(id: string, options: { forUpdate?: boolean } = {}): Promise<WorkflowTemplate | null> {
    // SELECT ... FOR UPDATE on MariaDB; SQLite has no row locks, but its write transactions are serialised.
    // Plain SQL on the driver (`read`): read on every generation request.
    const lock = options.forUpdate && this.scope.dialect === 'mysql' ? ' FOR UPDATE' : '';
    const [row] = await this.scope.read<TemplateRow>(`SELECT * FROM templates WHERE id = ? AND deleted_at IS NULL${lock}`, [id]);
    return row ? toTemplate(row) : null;
  }

  async nameTaken(name: string, exceptId?: string): Promise<boolean> {
    const where: WhereOptions<TemplateRow> = { active_name: templateNameKey(name), ...(exceptId ? { id: { [Op.ne]: exceptId } } : {}) };
    return (await this.templates.count({ where, ...this.scope.options })) > 0;
  }

  async list(options: { offeredOnly?: boolean } = {}): Promise<WorkflowTemplate[]> {
    const rows = await this.templates.findAll({
      where: { deleted_at: null, ...(options.offeredOnly ? { is_active: true, published_at: { [Op.ne]: null } } : {}) },
      order: [['created_at', 'ASC'], ['name', 'ASC'], ['id', 'ASC']],
      raw: true,
      ...this.scope.options,
    });
    return asRows<TemplateRow>(rows).map(toTemplate);
  }

  async namesOf(ids: readonly string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    // Plain SQL on the driver: read for every page of the output history.
    const wanted = sqlIn(ids);
    const rows = await this.scope.read<{ id: string; name: string }>(`SELECT id, name FROM templates WHERE deleted_at IS NULL AND id ${wanted.sql}`, wanted.params);
    return new Map(rows.map((row) => [row.id, row.name]));
  }

  update(next: WorkflowTemplate, options: { newVersion: boolean }): Promise<TemplateUpdateOutcome> {
    return this.scope.atomic(async (s): Promise<TemplateUpdateOutcome> => {
      const templates = templateModel(s.sequelize);
      const versions = versionModel(s.sequelize);
      const { id, created_at: _created, ...changes } = toRow(next);
      try {
        const [changed] = await templates.update(changes, { where: { id, deleted_at: null }, ...s.options });
        // MariaDB counts changed rows, not matched ones: zero can also mean "already like this".
        if (changed === 0 && (await templates.count({ where: { id, deleted_at: null }, ...s.options })) === 0) return 'not_found';
      } catch (error) {
        if (isUniqueViolation(error)) return 'name_taken';
        throw error;
      }
      if (options.newVersion) {
        await versions.create(toVersionRow(next), s.options);
      } else {
        await versions.update(
          { category: next.category, cost: next.cost, output_type: next.outputType },
          { where: { template_id: id, version: next.version }, ...s.options },
        );
      }
      return 'updated';
    });
  }

  async softDelete(id: string, at: Date): Promise<boolean> {
    const [changed] = await this.scope.write((s) =>
      templateModel(s.sequelize).update({ deleted_at: at, active_name: null, updated_at: at }, { where: { id, deleted_at: null }, ...s.options }),
    );
    return changed === 1;
  }

  async findVersion(templateId: string, version: number): Promise<TemplateVersion | null> {
    const row = asRow<VersionRow | null>(await this.versions.findOne({ where: { template_id: templateId, version }, raw: true, ...this.scope.options }));
    if (!row) return null;
    const template = asRow<TemplateRow | null>(
      await this.templates.findByPk(templateId, { attributes: ['name', 'is_active', 'deleted_at'], raw: true, ...this.scope.options }),
    );
    if (!template) return null;
    return {
      templateId: row.template_id,
      version: Number(row.version),
      name: template.name,
      category: row.category as Category,
      workflow: JSON.parse(row.workflow) as WorkflowGraph,
      parameterMap: JSON.parse(row.parameter_map) as ParameterMap,
      cost: Number(row.cost),
      outputType: row.output_type as OutputType,
      isActive: Boolean(Number(template.is_active)),
      deletedAt: template.deleted_at ? new Date(template.deleted_at) : null,
      createdAt: new Date(row.created_at),
    };
  }

  countEver(): Promise<number> {
    return this.templates.count(this.scope.options);
  }
}
