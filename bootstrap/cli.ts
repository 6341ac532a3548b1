/**
 * `npm run admin -- <command>`: operator commands against the configured database (the same
 * environment as the service). Migrations run first, so the CLI works on a fresh database too.
 *
 * Exit codes: 0 done, 1 the command failed (unknown email, database unreachable), 64 usage error,
 * 78 invalid configuration.
 */
import './threadpool.ts';
import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { loadConfig } from './config.ts';

const USAGE = `Usage: npm run admin -- <command>

Commands:
  promote <email>      give an existing account the admin role
  reset-link <email>   print a one-time link that sets the account's password (valid PASSWORD_RESET_TTL,
                       default 1 h; replaces the account's last link)
  delete-user <email>  delete the account for good: its jobs are cancelled, its sessions and API keys end,
                       its outputs and uploads are deleted, and its email can sign up afresh
  help                 show this text
`;

const usageError = (message: string): never => {
  process.stderr.write(`${message}\n\n${USAGE}`);
  process.exit(64);
};

const [command, ...args] = process.argv.slice(2);
if (command === undefined) usageError('No command given.');
if (command === 'help' || command === '--help' || command === '-h') {
  process.stdout.write(USAGE);
  process.exit(0);
}
const COMMANDS = ['promote', 'reset-link', 'delete-user'];
if (!COMMANDS.includes(command!)) usageError(`Unknown command "${command}".`);
if (args.length !== 1 || !args[0]!.trim()) usageError(`${command} takes exactly one argument: the email of the account.`);
const email = args[0]!.trim();

const loaded = loadConfig(process.env);
if (!loaded.ok) {
  process.stderr.write(`Configuration is invalid:\n${loaded.problems.map((problem) => `  - ${problem}`).join('\n')}\n`);
  process.exit(78);
}

// Say which database this is: run without the service's DATA_DIR / DATABASE_URL, the CLI would otherwise
// work on ./data while the service uses another one, and report "no user" for an account that exists.
const { database } = loaded.config;
const shown = database.dialect === 'sqlite' ? `SQLite ${database.storagePath}` : `MariaDB/MySQL ${redactUrl(database.url)}`;
const source = process.env['DATABASE_URL'] ? 'from DATABASE_URL' : process.env['DATA_DIR'] ? 'under DATA_DIR' : 'the default under ./data; set the service’s DATA_DIR or DATABASE_URL to use its database';
process.stderr.write(`Database: ${shown} (${source})\n`);
if (database.dialect === 'sqlite' && database.storagePath && !existsSync(database.storagePath)) {
  process.stderr.write(`No database file at ${database.storagePath}: the service has not run with this DATA_DIR. Nothing changed.\n`);
  process.exit(1);
}

// Loaded once the command line and configuration are known to be good (as in main.ts).
const { Container } = await import('inversify');
const { JsonLogger } = await import('../adapters/logging/json-logger.ts');
const { PromoteUser } = await import('../core/use-cases/auth/promote-user.use-case.ts');
const { IssuePasswordReset } = await import('../core/use-cases/auth/issue-password-reset.use-case.ts');
const { normalizeEmail } = await import('../core/domain/user.ts');
const { bindInfrastructure } = await import('./modules/infrastructure.module.ts');
const { bindFeatures } = await import('./modules/features.ts');
const { portsOf } = await import('./modules/ports.ts');
const { resolve, TOKENS } = await import('./tokens.ts');

const container = new Container({ defaultScope: 'Singleton' });
// Only warnings and errors, on stderr: stdout carries the command's answer.
bindInfrastructure(container, loaded.config, new JsonLogger('warn', { service: 'media-gen', roles: 'cli' }));
bindFeatures(container, loaded.config);
const ports = portsOf(container);

let exitCode = 0;
try {
  await ports.db().migrate();
  if (command === 'promote') {
    const result = await new PromoteUser({ users: ports.repos().users, clock: ports.clock() }).execute({ email });
    if (result.ok) {
      process.stdout.write(`${result.value.email} (${result.value.id}) is now an admin.\n`);
    } else {
      process.stderr.write(`${result.message}. Nothing changed.\n`);
      exitCode = 1;
    }
  } else if (command === 'delete-user') {
    const user = await ports.repos().users.findByEmail(normalizeEmail(email));
    const deletion = resolve(container, TOKENS.AccountDeletion);
    const result = user ? await deletion.deleteUser.execute({ actorId: null, userId: user.id }) : null;
    if (user && result?.ok) {
      const { jobsCancelled, coinsForfeited } = result.value;
      process.stdout.write(`${user.email} (${user.id}) is deleted: ${jobsCancelled} job(s) cancelled, ${coinsForfeited} coin(s) forfeited.\n`);
      const purged = await deletion.purge.purge(user.id);
      process.stdout.write(purged ? 'Its outputs and uploads are deleted.\n' : "Its outputs and uploads are not all deleted yet: the service's next sweep finishes them.\n");
    } else {
      process.stderr.write(`No account with the email ${email}. Nothing changed.\n`);
      exitCode = 1;
    }
  } else {
    const user = await ports.repos().users.findByEmail(normalizeEmail(email));
    const { config } = loaded;
    const issue = new IssuePasswordReset({ uow: ports.uow(), tokens: ports.tokens(), ids: ports.ids(), clock: ports.clock(), frontendUrl: config.frontendUrl, ttlSeconds: config.auth.passwordResetTtlSeconds });
    const result = user ? await issue.execute({ actorId: null, userId: user.id }) : null;
    if (user && result?.ok) {
      process.stderr.write(`A one-time link for ${user.email}, valid until ${result.value.expiresAt.toISOString()}; it replaces any earlier one:\n`);
      process.stdout.write(`${result.value.resetUrl}\n`);
    } else {
      process.stderr.write(`No account with the email ${email}. Nothing changed.\n`);
      exitCode = 1;
    }
  }
} catch (error) {
  process.stderr.write(`${command} failed: ${(error as Error).message}\n`);
  exitCode = 1;
} finally {
  await ports.db().close().catch(() => undefined);
}
process.exit(exitCode);

function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'mysql://…';
  }
}
