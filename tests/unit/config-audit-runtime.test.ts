import type { AddressInfo } from 'node:net';
import test from 'ava';
import express from 'express';
import { sendError, sendFail } from '../../adapters/http/error-table.ts';
import { mergeFeatures } from '../../adapters/http/routes/features.routes.ts';
import { JsonLogger } from '../../adapters/logging/json-logger.ts';
import { Scheduler } from '../../bootstrap/scheduler.ts';
import { quietLogger } from '../support/generation-harness.ts';

/**
 * Guard audit of the small runtime pieces next to the configuration: the HTTP error table (the status and body every
 * refused request gets), the JSON logger (levels, secrets never written), the scheduler (runs only when started)
 * and the merge of the features the web client reads.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------------------------
// error table: the status and body of each use-case code, over real HTTP

/** API.md §0: the status each refusal is answered with, and its reason phrase. */
const STATUS_TABLE: [code: string, status: number, reason: string][] = [
  ['VALIDATION.FAILED', 400, 'Bad Request'],
  ['AUTH.INVALID_CREDENTIALS', 401, 'Unauthorized'],
  ['AUTH.UNAUTHENTICATED', 401, 'Unauthorized'],
  ['AUTH.FORBIDDEN', 403, 'Forbidden'],
  ['AUTH.RATE_LIMITED', 429, 'Too Many Requests'],
  ['AUTH.UNKNOWN_PROVIDER', 404, 'Not Found'],
  ['USER.EMAIL_TAKEN', 409, 'Conflict'],
  ['NOT_FOUND', 404, 'Not Found'],
  ['CONFLICT', 409, 'Conflict'],
  ['IDEMPOTENCY.KEY_REUSED', 409, 'Conflict'],
  ['IDEMPOTENCY.IN_PROGRESS', 409, 'Conflict'],
  ['COIN.INSUFFICIENT', 402, 'Payment Required'],
  ['TEMPLATE.NAME_TAKEN', 409, 'Conflict'],
  ['JOB.FINISHED', 409, 'Conflict'],
  ['JOB.TOO_MANY_ACTIVE', 429, 'Too Many Requests'],
  ['QUEUE.FULL', 429, 'Too Many Requests'],
  ['PAYLOAD.TOO_LARGE', 413, 'Payload Too Large'],
  ['UPSTREAM.FAILED', 502, 'Bad Gateway'],
  ['UPSTREAM.TIMEOUT', 504, 'Gateway Timeout'],
  ['INTEGRATION.NOT_CONFIGURED', 503, 'Service Unavailable'],
  ['RATE_LIMITED', 429, 'Too Many Requests'],
  ['ASSET.MISSING', 400, 'Bad Request'],
  ['ASSET.HASH_MISMATCH', 409, 'Conflict'],
  ['ASSET.IN_USE', 409, 'Conflict'],
];

async function errorServer(t: import('ava').ExecutionContext): Promise<string> {
  const app = express();
  app.get('/fail/:code', (req, res) => {
    const details = req.query.details === 'empty' ? [] : req.query.details === 'one' ? [{ field: 'email', message: 'must be a valid email' }] : undefined;
    sendFail(res, { ok: false, code: String(req.params.code), message: `refused: ${req.params.code}`, ...(details ? { details } : {}) } as never);
  });
  app.get('/status/:status', (req, res) => sendError(res, Number(req.params.status), 'plain'));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test('error table: every use-case code is answered with its documented status and reason', async (t) => {
  const base = await errorServer(t);
  for (const [code, status, reason] of STATUS_TABLE) {
    const res = await fetch(`${base}/fail/${code}`);
    t.is(res.status, status, code);
    t.deepEqual(await res.json(), { statusCode: status, error: reason, message: `refused: ${code}` }, code);
  }
});

test('error table: an unknown code is a 500, never a success or a crash', async (t) => {
  const base = await errorServer(t);
  const res = await fetch(`${base}/fail/SOMETHING.NEW`);
  t.is(res.status, 500);
  t.deepEqual(await res.json(), { statusCode: 500, error: 'Internal Server Error', message: 'refused: SOMETHING.NEW' });
});

test('error table: details are sent only when there is one; the other reason phrases', async (t) => {
  const base = await errorServer(t);
  t.deepEqual(await (await fetch(`${base}/fail/VALIDATION.FAILED?details=one`)).json(), {
    statusCode: 400,
    error: 'Bad Request',
    message: 'refused: VALIDATION.FAILED',
    details: [{ field: 'email', message: 'must be a valid email' }],
  });
  t.false('details' in ((await (await fetch(`${base}/fail/VALIDATION.FAILED?details=empty`)).json()) as object), 'an empty list is left out');
  for (const [status, reason] of [[415, 'Unsupported Media Type'], [416, 'Range Not Satisfiable'], [418, 'Error']] as const) {
    const res = await fetch(`${base}/status/${status}`);
    t.is(res.status, status);
    t.deepEqual(await res.json(), { statusCode: status, error: reason, message: 'plain' });
  }
});

// ---------------------------------------------------------------------------------------------------------------
// JSON logger

function captured(level: 'debug' | 'info' | 'warn' | 'error' = 'info') {
  const lines: { line: Record<string, unknown>; level: string }[] = [];
  const logger = new JsonLogger(level, { service: 'api' }, (line, at) => void lines.push({ line: JSON.parse(line) as Record<string, unknown>, level: at }));
  return { logger, lines };
}

test('logger: lines below the level are dropped, the level and above are written', (t) => {
  const { logger, lines } = captured('warn');
  logger.debug('d');
  logger.info('i');
  logger.warn('w');
  logger.error('e');
  t.deepEqual(lines.map(({ line }) => line.msg), ['w', 'e']);
  const all = captured('debug');
  all.logger.debug('d');
  all.logger.info('i');
  t.deepEqual(all.lines.map(({ line }) => [line.level, line.msg]), [['debug', 'd'], ['info', 'i']]);
  const info = captured();
  info.logger.debug('hidden');
  info.logger.info('shown');
  t.deepEqual(info.lines.map(({ line }) => line.msg), ['shown'], 'info is the default level');
});

test('logger: secrets are never written, whatever the key looks like', (t) => {
  const { logger, lines } = captured();
  logger.info('login', {
    password: 'p1',
    pass: 'p2',
    newPassword: 'p3',
    jwtSecret: 's1',
    clientSecret: 's2',
    token: 't1',
    refresh_token: 't2',
    authorization: 'Bearer x',
    Authorization: 'Bearer y',
    cookie: 'sid=1',
    'set-cookie': 'sid=2',
    apiKey: 'k1',
    api_key: 'k2',
    'api-key': 'k3',
    email: 'a@example.com',
    userId: 'u1',
  });
  const line = lines[0]!.line;
  for (const key of ['password', 'pass', 'newPassword', 'jwtSecret', 'clientSecret', 'token', 'refresh_token', 'authorization', 'Authorization', 'cookie', 'set-cookie', 'apiKey', 'api_key', 'api-key']) {
    t.is(line[key], '[redacted]', key);
  }
  t.is(line.email, 'a@example.com');
  t.is(line.userId, 'u1');
  t.false(JSON.stringify(line).match(/p1|p2|p3|s1|s2|t1|t2|Bearer|sid=|k1|k2|k3/) !== null, JSON.stringify(line));
});

test("logger: a child's fields are scrubbed too, and carried on every line", (t) => {
  const { logger, lines } = captured();
  const child = logger.child({ requestId: 'r1', token: 'leak' });
  child.info('hello', { extra: 1 });
  t.like(lines[0]!.line, { msg: 'hello', service: 'api', requestId: 'r1', token: '[redacted]', extra: 1, level: 'info' });
  t.false(JSON.stringify(lines[0]!.line).includes('leak'));
});

test('logger: an Error is written with its name, message and stack (not as {})', (t) => {
  const { logger, lines } = captured();
  const error = new TypeError('broken pipe');
  logger.error('failed', { error });
  t.like(lines[0]!.line.error, { name: 'TypeError', message: 'broken pipe' });
  t.true(String((lines[0]!.line.error as { stack: string }).stack).includes('broken pipe'));
});

test('logger: by default warnings and errors go to stderr, the rest to stdout', (t) => {
  const out: string[] = [];
  const err: string[] = [];
  const stdoutWrite = process.stdout.write;
  const stderrWrite = process.stderr.write;
  process.stdout.write = ((chunk: string) => void out.push(String(chunk))) as never;
  process.stderr.write = ((chunk: string) => void err.push(String(chunk))) as never;
  try {
    const logger = new JsonLogger('debug');
    logger.debug('to-out-1');
    logger.info('to-out-2');
    logger.warn('to-err-1');
    logger.error('to-err-2');
  } finally {
    process.stdout.write = stdoutWrite;
    process.stderr.write = stderrWrite;
  }
  t.deepEqual(out.map((line) => (JSON.parse(line) as { msg: string }).msg), ['to-out-1', 'to-out-2']);
  t.deepEqual(err.map((line) => (JSON.parse(line) as { msg: string }).msg), ['to-err-1', 'to-err-2']);
  t.true(out.every((line) => line.endsWith('\n')), 'one line per entry');
});

// ---------------------------------------------------------------------------------------------------------------
// scheduler

test('scheduler: stopped right after start, a task never runs (the first tick is after start)', async (t) => {
  const scheduler = new Scheduler(['api'], quietLogger);
  let runs = 0;
  scheduler.add({ name: 'sweep', roles: ['api'], everyMs: 5, run: async () => void (runs += 1) });
  await scheduler.start();
  await scheduler.stop();
  await sleep(40);
  t.is(runs, 0);
});

test('scheduler: stop() returns only after the run in flight has finished', async (t) => {
  const scheduler = new Scheduler(['api'], quietLogger);
  let started = false;
  let finished = false;
  scheduler.add({
    name: 'slow',
    roles: ['api'],
    everyMs: 60_000,
    run: async () => {
      started = true;
      await sleep(50);
      finished = true;
    },
  });
  await scheduler.start();
  while (!started) await sleep(1);
  await scheduler.stop();
  t.true(finished);
});

test('scheduler: runNow before start runs nothing; an unknown name is an error', async (t) => {
  const scheduler = new Scheduler(['api'], quietLogger);
  let runs = 0;
  scheduler.add({ name: 'sweep', roles: ['api'], everyMs: 60_000, run: async () => void (runs += 1) });
  await scheduler.runNow('sweep');
  t.is(runs, 0);
  await t.throwsAsync(scheduler.runNow('nothing'), { message: 'scheduler: no task named nothing' });
});

test('scheduler: a task of several roles runs in a process with any of them; the first run comes right after start', async (t) => {
  const scheduler = new Scheduler(['worker'], quietLogger);
  let runs = 0;
  scheduler.add({ name: 'both', roles: ['api', 'worker'], everyMs: 60_000, run: async () => void (runs += 1) });
  await scheduler.start();
  await sleep(20);
  await scheduler.stop();
  t.is(runs, 1, 'one run right after start, none from the 60 s interval');
});

test('scheduler: runNow waits for the run in flight, then runs once more (never two at once)', async (t) => {
  const scheduler = new Scheduler(['api'], quietLogger);
  let running = 0;
  let most = 0;
  let runs = 0;
  scheduler.add({
    name: 'slow',
    roles: ['api'],
    everyMs: 60_000,
    run: async () => {
      running += 1;
      runs += 1;
      most = Math.max(most, running);
      await sleep(30);
      running -= 1;
    },
  });
  await scheduler.start();
  await sleep(5);
  await scheduler.runNow('slow');
  await scheduler.stop();
  t.is(most, 1);
  t.is(runs, 2);
});

// ---------------------------------------------------------------------------------------------------------------
// features

test('features: lists are concatenated, chat, mailed reset links and email change are on when any contribution turns them on', (t) => {
  t.deepEqual(mergeFeatures([]), { oidcProviders: [], socialPlatforms: [], chat: false, passwordResetByMail: false, emailChange: false });
  t.deepEqual(mergeFeatures([{ oidcProviders: ['google'] }, { chat: true }, { socialPlatforms: ['YOUTUBE', 'TIKTOK'], chat: false }, { oidcProviders: ['github'] }]), {
    oidcProviders: ['google', 'github'],
    socialPlatforms: ['YOUTUBE', 'TIKTOK'],
    chat: true,
    passwordResetByMail: false,
    emailChange: false,
  });
  t.true(mergeFeatures([{ passwordResetByMail: true }, { passwordResetByMail: false }, {}]).passwordResetByMail);
  t.false(mergeFeatures([{ passwordResetByMail: false }, { chat: true }]).passwordResetByMail);
  t.true(mergeFeatures([{ emailChange: true }, { emailChange: false }, {}]).emailChange);
  t.false(mergeFeatures([{ passwordResetByMail: true }]).emailChange);
});
