import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { PROJECT_BIN, PROJECT_ROOT, runCommand } from '../support/run-command.ts';
import { startTestApp } from '../support/test-app.ts';

const cli = (args: string[], env: Record<string, string>) => runCommand(path.join(PROJECT_BIN, 'tsx'), ['bootstrap/cli.ts', ...args], env);

test('`npm run admin -- promote <email>` makes a registered user an admin', async (t) => {
  const app = await startTestApp('sqlite');
  t.teardown(() => app.close());
  const client = app.client();
  const user = await client.signUp({ email: 'Promote.Me@example.com' });
  t.is(user.role, 'user');

  // Against the same SQLite file while the service runs, as an operator would.
  const result = await runCommand('npm', ['run', '--silent', 'admin', '--', 'promote', 'PROMOTE.me@example.com'], { DATA_DIR: app.dataDir });
  t.is(result.code, 0, result.stderr);
  t.is(result.stdout, `promote.me@example.com (${user.id}) is now an admin.\n`);

  // The role is read from the database on each request.
  const profile = await client.get('/auth/profile');
  t.is(profile.body.role, 'admin');
  const login = await app.client().post('/auth/login', { email: user.email, password: user.password });
  t.is(login.body.user.role, 'admin');
});

test('promote of an unknown email exits 1 and says so, naming the database it opened', async (t) => {
  const app = await startTestApp('sqlite');
  t.teardown(() => app.close());
  const result = await cli(['promote', 'nobody@example.com'], { DATA_DIR: app.dataDir });
  t.is(result.code, 1);
  t.is(result.stdout, '');
  t.true(result.stderr.startsWith(`Database: SQLite ${path.join(app.dataDir, 'app.db')} (under DATA_DIR)\n`), result.stderr);
  t.regex(result.stderr, /No user with email nobody@example\.com\. Nothing changed\./);
});

test('`npm run admin -- reset-link <email>` prints a one-time link that sets the password; an unknown email exits 1', async (t) => {
  const app = await startTestApp('sqlite', { FRONTEND_URL: 'https://studio.example.com' });
  t.teardown(() => app.close());
  const client = app.client();
  const user = await client.signUp({ email: 'Forgot.Me@example.com' });
  const result = await cli(['reset-link', 'FORGOT.me@example.com'], { DATA_DIR: app.dataDir, FRONTEND_URL: 'https://studio.example.com' });
  t.is(result.code, 0, result.stderr);
  t.regex(result.stdout, /^https:\/\/studio\.example\.com\/reset-password#token=[\w-]{43}\n$/);
  t.regex(result.stderr, /A one-time link for forgot\.me@example\.com, valid until \d{4}-/);
  const token = result.stdout.trim().split('#token=')[1];
  const reset = await app.client().post('/auth/password-reset', { token, newPassword: 'a brand new passphrase 9' });
  t.is(reset.status, 200, JSON.stringify(reset.body));
  t.is((await client.get('/auth/profile')).status, 401, 'the sessions of the user ended');
  t.is((await app.client().post('/auth/login', { email: user.email, password: 'a brand new passphrase 9' })).status, 200);

  const unknown = await cli(['reset-link', 'nobody@example.com'], { DATA_DIR: app.dataDir });
  t.is(unknown.code, 1);
  t.is(unknown.stdout, '');
  t.regex(unknown.stderr, /No account with the email nobody@example\.com\. Nothing changed\./);
  const missing = await cli(['reset-link'], { DATA_DIR: app.dataDir });
  t.is(missing.code, 64);
  t.regex(missing.stderr, /reset-link takes exactly one argument/);
});

test('`npm run admin -- delete-user <email>` deletes the account and its files while the service runs; an unknown email exits 1', async (t) => {
  const app = await startTestApp('sqlite');
  t.teardown(() => app.close());
  const client = app.client();
  const user = await client.signUp({ email: 'Spam.Account@example.com' });
  const image = (await client.get('/templates')).body.find((tpl: { name: string }) => tpl.name === 'Solid colour image');
  const submitted = await client.post('/generate', { templateId: image.id, parameters: { prompt: 'x', width: 64, height: 64 } });
  t.is(submitted.status, 202);
  for (let i = 0; i < 300 && (await client.get(`/generate/${submitted.body.id}`)).body.status !== 'succeeded'; i++) await new Promise((r) => setTimeout(r, 50));
  const files = () => readdirSync(path.join(app.dataDir, 'storage'), { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile() && !entry.name.startsWith('.'));
  t.is(files().length, 1, 'the output is stored');

  const result = await cli(['delete-user', 'SPAM.account@example.com'], { DATA_DIR: app.dataDir });
  t.is(result.code, 0, result.stderr);
  t.is(result.stdout, `spam.account@example.com (${user.id}) is deleted: 0 job(s) cancelled, ${100 - image.cost} coin(s) forfeited.\nIts outputs and uploads are deleted.\n`);
  t.is(files().length, 0, 'and its file is gone');
  t.is((await client.get('/auth/profile')).status, 401, 'its session ended');
  t.is((await app.client().post('/auth/login', { email: user.email, password: user.password })).status, 401);

  const again = await cli(['delete-user', 'spam.account@example.com'], { DATA_DIR: app.dataDir });
  t.is(again.code, 1);
  t.regex(again.stderr, /No account with the email spam\.account@example\.com\. Nothing changed\./);
});

test('without the service’s DATA_DIR the CLI says which database it looked at and creates none', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mgs-cli-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const result = await cli(['promote', 'someone@example.com'], { DATA_DIR: dataDir });
  t.is(result.code, 1);
  t.regex(result.stderr, /^Database: SQLite .*app\.db \(under DATA_DIR\)\nNo database file at .*app\.db: the service has not run with this DATA_DIR\. Nothing changed\./);
  t.false(readdirSync(dataDir).some((name) => name.startsWith('app.db')), 'no stray database was created');
  const cwd = mkdtempSync(path.join(tmpdir(), 'mgs-cli-cwd-'));
  t.teardown(() => rmSync(cwd, { recursive: true, force: true }));
  const defaulted = await runCommand(path.join(PROJECT_BIN, 'tsx'), [path.join(PROJECT_ROOT, 'bootstrap/cli.ts'), 'promote', 'someone@example.com'], {}, { cwd });
  t.is(defaulted.code, 1);
  t.regex(defaulted.stderr, /the default under \.\/data; set the service’s DATA_DIR or DATABASE_URL to use its database/);
});

test('usage errors exit 64 with the usage; help exits 0', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mgs-cli-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = { DATA_DIR: dataDir };
  const [none, unknown, missing, extra, help] = await Promise.all([
    cli([], env),
    cli(['demote', 'a@example.com'], env),
    cli(['promote'], env),
    cli(['promote', 'a@example.com', 'b@example.com'], env),
    cli(['help'], env),
  ]);
  t.is(none.code, 64);
  t.regex(none.stderr, /^No command given\.\n\nUsage: npm run admin -- <command>/);
  t.is(unknown.code, 64);
  t.regex(unknown.stderr, /^Unknown command "demote"\.\n\nUsage:/);
  t.is(missing.code, 64);
  t.regex(missing.stderr, /promote takes exactly one argument/);
  t.is(extra.code, 64);
  t.is(help.code, 0);
  t.regex(help.stdout, /promote <email>/);
  for (const result of [none, unknown, missing, extra]) t.is(result.stdout, '');
});

// Pins: --help and -h are help too; a blank email is a usage error; the database named on stderr never shows its
// password (operators paste this output into tickets).
test('help by flag, a blank email, and a MariaDB URL shown without its password', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mgs-cli-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const [long, short, blank, mariadb] = await Promise.all([
    cli(['--help'], { DATA_DIR: dataDir }),
    cli(['-h'], { DATA_DIR: dataDir }),
    cli(['promote', '  '], { DATA_DIR: dataDir }),
    // Nothing listens on port 1: the CLI names the database, then fails to reach it.
    cli(['promote', 'a@example.com'], { DATA_DIR: dataDir, DATABASE_URL: 'mysql://operator:s3cret-pass@127.0.0.1:1/app' }),
  ]);
  for (const help of [long, short]) {
    t.is(help.code, 0, help.stderr);
    t.regex(help.stdout, /promote <email>/);
  }
  t.is(blank.code, 64);
  t.regex(blank.stderr, /promote takes exactly one argument/);
  t.is(mariadb.code, 1);
  t.true(mariadb.stderr.startsWith('Database: MariaDB/MySQL mysql://operator:***@127.0.0.1:1/app (from DATABASE_URL)\n'), mariadb.stderr);
  t.notRegex(mariadb.stderr, /s3cret-pass/);
  t.regex(mariadb.stderr, /promote failed: /);
});

test('an invalid configuration exits 78 listing the problems', async (t) => {
  const result = await cli(['promote', 'a@example.com'], { DATA_DIR: tmpdir(), DATABASE_URL: 'postgres://db/app', APP_ENV: 'production' });
  t.is(result.code, 78);
  t.regex(result.stderr, /DATABASE_URL/);
  t.regex(result.stderr, /JWT_SECRET/);
});

test('`npm run comfy-serve -- --help` prints its usage; an unknown flag exits 64 with the usage, not a stack trace', async (t) => {
  const [help, unknown] = await Promise.all([
    runCommand('npm', ['run', '--silent', 'comfy-serve', '--', '--help'], {}),
    runCommand('npm', ['run', '--silent', 'comfy-serve', '--', '--bogus'], {}),
  ]);
  t.is(help.code, 0, help.stderr);
  t.regex(help.stdout, /^Usage: npm run comfy-serve -- \[options\]/);
  t.regex(help.stdout, /--port PORT/);
  t.is(unknown.code, 64);
  t.regex(unknown.stderr, /^comfy-serve: Unknown option '--bogus'\n\nUsage: npm run comfy-serve/);
  t.notRegex(unknown.stderr, /\n\s+at /, 'no stack trace');
});
