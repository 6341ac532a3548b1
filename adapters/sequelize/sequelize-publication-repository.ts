import { DataTypes, Op, Transaction, type Model, type Sequelize } from 'sequelize';
import type { Publication, PublicationPrivacy, PublicationStatus, SocialPlatform } from '../../core/domain/social.ts';
import type { PublicationEnd, PublicationRepository } from '../../core/ports/publication-repository.port.ts';
import { asRow, asRows, defineOnce, type RowModel } from './models.ts';
import { isUniqueViolation, type SqlScope } from './sql-scope.ts';

interface PublicationRow {
  output_id: string;
  platform: string;
  user_id: string;
  status: string;
  attempt_id: string;
  title: string;
  description: string;
  privacy: string;
  url: string | null;
  error: string | null;
  remote_ref: string | null;
  created_at: Date;
  updated_at: Date;
}

const publicationModel = (sequelize: Sequelize): RowModel<PublicationRow> =>
  defineOnce(sequelize, 'Publication', () =>
    sequelize.define<Model<PublicationRow, PublicationRow>>(
      'Publication',
      {
        output_id: { type: DataTypes.UUID, primaryKey: true },
        platform: { type: DataTypes.STRING(16), primaryKey: true },
        user_id: { type: DataTypes.UUID, allowNull: false },
        status: { type: DataTypes.STRING(16), allowNull: false },
        attempt_id: { type: DataTypes.UUID, allowNull: false },
        title: { type: DataTypes.STRING(100), allowNull: false },
        description: { type: DataTypes.TEXT, allowNull: false },
        privacy: { type: DataTypes.STRING(16), allowNull: false },
        url: { type: DataTypes.STRING(2048), allowNull: true },
        error: { type: DataTypes.TEXT, allowNull: true },
        remote_ref: { type: DataTypes.TEXT, allowNull: true },
        created_at: { type: DataTypes.DATE(3), allowNull: false },
        updated_at: { type: DataTypes.DATE(3), allowNull: false },
      },
      { tableName: 'publications' },
    ),
  );

const toPublication = (row: PublicationRow): Publication => ({
  outputId: row.output_id,
  platform: row.platform as SocialPlatform,
  userId: row.user_id,
  status: row.status as PublicationStatus,
  attemptId: row.attempt_id,
  title: row.title,
  description: row.description,
  privacy: row.privacy as PublicationPrivacy,
  url: row.url,
  error: row.error,
  remoteRef: row.remote_ref,
  createdAt: new Date(row.created_at),
  updatedAt: new Date(row.updated_at),
});

const ACTIVE = ['pending', 'uploading'];

export class SequelizePublicationRepository implements PublicationRepository {
  constructor(private readonly scope: SqlScope) {}

  private get model(): RowModel<PublicationRow> {
    return publicationModel(this.scope.sequelize);
  }

  async request(publication: Publication): Promise<{ started: boolean; publication: Publication }> {
    const fresh = {
      user_id: publication.userId,
      status: 'pending',
      attempt_id: publication.attemptId,
      title: publication.title,
      description: publication.description,
      privacy: publication.privacy,
      url: null,
      error: null,
      remote_ref: null,
      updated_at: publication.updatedAt,
    };
    const where = { output_id: publication.outputId, platform: publication.platform };
    for (let tries = 1; ; tries++) {
      try {
        await this.scope.write((s) => publicationModel(s.sequelize).create({ ...where, ...fresh, created_at: publication.createdAt }, s.options));
        return { started: true, publication: (await this.current(publication.outputId, publication.platform))! };
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
      }
      const current = await this.current(publication.outputId, publication.platform);
      if (!current) {
        // Removed since the insert failed (its output is being deleted): insert again, which then fails on the output.
        if (tries < 3) continue;
        throw new Error(`publication ${publication.outputId}/${publication.platform} is neither insertable nor readable`);
      }
      // Only a failed publication starts again; one pending, uploading or published stays as it is. Checked on the
      // row read first, so a repeated request takes no exclusive lock: concurrent requests in transactions each hold
      // a shared lock on the row since their failed insert, and would deadlock upgrading it all at once.
      if (current.status !== 'failed') return { started: false, publication: current };
      const [changed] = await this.scope.write((s) => publicationModel(s.sequelize).update(fresh, { where: { ...where, status: 'failed' }, ...s.options }));
      return { started: changed > 0, publication: (await this.current(publication.outputId, publication.platform))! };
    }
  }

  /**
   * The row as committed now. Inside a MariaDB transaction a plain SELECT answers from the snapshot taken at the
   * transaction's first read, which misses a row that another request committed since; a locking read does not.
   */
  private async current(outputId: string, platform: SocialPlatform): Promise<Publication | null> {
    const lock = this.scope.dialect === 'mysql' && this.scope.inTransaction ? { lock: Transaction.LOCK.SHARE } : {};
    const row = await this.model.findOne({ where: { output_id: outputId, platform }, raw: true, ...lock, ...this.scope.options });
    return row ? toPublication(asRow<PublicationRow>(row)) : null;
  }

  async find(outputId: string, platform: SocialPlatform): Promise<Publication | null> {
    const row = await this.model.findOne({ where: { output_id: outputId, platform }, raw: true, ...this.scope.options });
    return row ? toPublication(asRow<PublicationRow>(row)) : null;
  }

  async listForOutput(outputId: string): Promise<Publication[]> {
    const rows = await this.model.findAll({ where: { output_id: outputId }, order: [['platform', 'ASC']], raw: true, ...this.scope.options });
    return asRows<PublicationRow>(rows).map(toPublication);
  }

  async begin(outputId: string, platform: SocialPlatform, attemptId: string, now: Date): Promise<boolean> {
    return this.transition(outputId, platform, attemptId, ACTIVE, { status: 'uploading', updated_at: now });
  }

  async saveRemoteRef(outputId: string, platform: SocialPlatform, attemptId: string, remoteRef: string, now: Date): Promise<boolean> {
    return this.transition(outputId, platform, attemptId, ['uploading'], { remote_ref: remoteRef, updated_at: now });
  }

  async end(outputId: string, platform: SocialPlatform, attemptId: string, end: PublicationEnd, now: Date): Promise<boolean> {
    const values = end.status === 'published' ? { status: 'published', url: end.url, error: null } : { status: 'failed', url: null, error: end.error };
    return this.transition(outputId, platform, attemptId, ACTIVE, { ...values, updated_at: now });
  }

  /** One conditional UPDATE: this attempt, in one of `from`; true when it changed the row. */
  private async transition(outputId: string, platform: SocialPlatform, attemptId: string, from: string[], values: Partial<PublicationRow>): Promise<boolean> {
    const [changed] = await this.scope.write((s) =>
      publicationModel(s.sequelize).update(values, { where: { output_id: outputId, platform, attempt_id: attemptId, status: { [Op.in]: from } }, ...s.options }),
    );
    return changed > 0;
  }
}
