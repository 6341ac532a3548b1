import { DataTypes } from 'sequelize';
import type { QueryInterface } from 'sequelize';

export interface Migration {
  name: string;
  up(queryInterface: QueryInterface, dialect: 'sqlite' | 'mysql'): Promise<void>;
  down(queryInterface: QueryInterface, dialect: 'sqlite' | 'mysql'): Promise<void>;
}

/** LONGTEXT on MariaDB (workflows reach 1 MiB, past TEXT's 64 KiB); SQLite's TEXT has no length. */
export const longText = (dialect: 'sqlite' | 'mysql') => (dialect === 'mysql' ? DataTypes.TEXT('long') : DataTypes.TEXT);
