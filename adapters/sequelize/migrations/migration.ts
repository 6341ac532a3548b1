import type { QueryInterface } from 'sequelize';

export interface Migration {
  name: string;
  up(queryInterface: QueryInterface, dialect: 'sqlite' | 'mysql'): Promise<void>;
  down(queryInterface: QueryInterface, dialect: 'sqlite' | 'mysql'): Promise<void>;
}
