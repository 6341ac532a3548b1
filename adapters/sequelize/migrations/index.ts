import type { Migration } from './migration.ts';
import { usersAndSessions } from './001-users-and-sessions.ts';
import { coins } from './002-coins.ts';
import { templates } from './003-templates.ts';

/** Every migration, in order. Append new ones; never edit one that has shipped. */
export const MIGRATIONS: Migration[] = [usersAndSessions, coins, templates];
