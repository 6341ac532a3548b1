import { DataTypes } from 'sequelize';
import { longText, type Migration } from './migration.ts';

const timestamp = (allowNull = false) => ({ type: DataTypes.DATE(3), allowNull });
const json = (dialect: 'sqlite' | 'mysql') => ({ type: longText(dialect), allowNull: false });

export const jobsAndHistory: Migration = {
  name: '007-jobs-and-history',
  async up(qi, dialect) {
    await qi.createTable('generation_jobs', {
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      user_id: { type: DataTypes.UUID, allowNull: false, references: { model: 'users', key: 'id' }, onDelete: 'CASCADE' },
      template_id: { type: DataTypes.UUID, allowNull: true },
      template_version: { type: DataTypes.INTEGER, allowNull: true },
      status: { type: DataTypes.STRING(16), allowNull: false },
      progress_value: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      progress_max: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 1 },
      status_text: { type: DataTypes.STRING(255), allowNull: false, defaultValue: '' },
      workflow: json(dialect),
      used_parameters: json(dialect),
      image_refs: json(dialect),
      output_type: { type: DataTypes.STRING(8), allowNull: false },
      paid_coins: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      refunded_coins: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      error: { type: DataTypes.TEXT, allowNull: true },
      text_outputs: json(dialect),
      attempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      created_at: timestamp(),
      updated_at: timestamp(),
      started_at: timestamp(true),
      finished_at: timestamp(true),
    });
    await qi.addIndex('generation_jobs', ['user_id', 'created_at'], { name: 'generation_jobs_user_created' });
    await qi.addIndex('generation_jobs', ['user_id', 'status'], { name: 'generation_jobs_user_status' });
    await qi.addIndex('generation_jobs', ['template_id'], { name: 'generation_jobs_template' });

    await qi.createTable('history_items', {
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      job_id: { type: DataTypes.UUID, allowNull: false },
      user_id: { type: DataTypes.UUID, allowNull: false, references: { model: 'users', key: 'id' }, onDelete: 'CASCADE' },
      template_id: { type: DataTypes.UUID, allowNull: true },
      storage_key: { type: DataTypes.STRING(512), allowNull: false },
      file_name: { type: DataTypes.STRING(255), allowNull: false },
      mime_type: { type: DataTypes.STRING(100), allowNull: false },
      size_bytes: { type: DataTypes.BIGINT, allowNull: false },
      width: { type: DataTypes.INTEGER, allowNull: true },
      height: { type: DataTypes.INTEGER, allowNull: true },
      duration_seconds: { type: DataTypes.DOUBLE, allowNull: true },
      used_parameters: json(dialect),
      created_at: timestamp(),
      expires_at: timestamp(),
    });
    // A redelivered message cannot record the same file twice.
    await qi.addIndex('history_items', ['job_id', 'file_name'], { name: 'history_items_job_file', unique: true });
    await qi.addIndex('history_items', ['user_id', 'created_at'], { name: 'history_items_user_created' });
    await qi.addIndex('history_items', ['expires_at'], { name: 'history_items_expires' });

    await qi.createTable('deduction_claims', {
      deduction_id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      outcome: { type: DataTypes.STRING(16), allowNull: false },
      job_id: { type: DataTypes.UUID, allowNull: true },
      created_at: timestamp(),
    });
  },
  async down(qi) {
    await qi.dropTable('deduction_claims');
    await qi.dropTable('history_items');
    await qi.dropTable('generation_jobs');
  },
};
