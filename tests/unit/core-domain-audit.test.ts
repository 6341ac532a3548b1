import test from 'ava';
import { chooseByArrival, chooseFair, chooseJob, type DispatchInput, type WaitingJob } from '../../core/domain/dispatch-policy.ts';
import { viewOfMessage } from '../../core/domain/queue-view.ts';
import { assertStorageKey, InvalidStorageKeyError, storageKeyProblem } from '../../core/domain/storage-key.ts';

/** The guard audit of three pure domain modules: the dispatch policy, the administrators' view of a queue message, storage keys. */

const job = (id: string, userId: string, order: number, models: string[] = [], skippedSince: number | null = null): WaitingJob => ({ id, userId, order, models, skippedSince });
const input = (waiting: WaitingJob[], extra: Partial<DispatchInput> = {}): DispatchInput => ({ waiting, loaded: [], lastServed: new Map(), now: 10_000, maxSkipMs: 1_000, ...extra });

// ---------------------------------------------------------------- dispatch policy

// Pins: nothing waiting, nothing chosen (both policies).
test('dispatch: no waiting job, no choice', (t) => {
  t.is(chooseFair(input([])), null);
  t.is(chooseByArrival(input([])), null);
});

// Pins: among overdue jobs the one passed over longest goes first, ties to the one that came first; an overdue pick passes no one over.
test('dispatch: the longest-overdue job goes first, ties by arrival', (t) => {
  const longest = chooseFair(input([job('a', 'u1', 1, [], 8_000), job('b', 'u2', 2, [], 5_000)]));
  t.deepEqual(longest, { id: 'b', reason: 'overdue', skipped: [] });
  const tie = chooseFair(input([job('c', 'u1', 3, [], 5_000), job('d', 'u2', 2, [], 5_000)]));
  t.deepEqual(tie, { id: 'd', reason: 'overdue', skipped: [] });
});

// Pins: a user's jobs go oldest first, whatever order the pool lists them in.
test('dispatch: each user\'s oldest job first', (t) => {
  t.deepEqual(chooseFair(input([job('late', 'u1', 5), job('early', 'u1', 1)])), { id: 'early', reason: 'fair', skipped: [] });
});

// Pins: a job taken for its loaded models passes over the first job of each user ahead and its owner's older job.
test('dispatch: a loaded-models pick names every job it passes over', (t) => {
  const choice = chooseFair(input([job('a1', 'uA', 1, ['X']), job('b1', 'uB', 2, ['Z']), job('b2', 'uB', 3, ['Y'])], { loaded: ['Y'] }));
  t.deepEqual(choice, { id: 'b2', reason: 'loaded', skipped: ['a1', 'b1'] });
});

// Pins: the fair order's first job, when its models are loaded, is a plain fair pick passing no one over.
test('dispatch: the first job in fair order with its models loaded is a fair pick', (t) => {
  const choice = chooseFair(input([job('a1', 'uA', 1, ['Y']), job('b1', 'uB', 2, ['Y'])], { loaded: ['Y'] }));
  t.deepEqual(choice, { id: 'a1', reason: 'fair', skipped: [] });
});

// Pins: no waiting job's models loaded: the first job of the fair order (least recently served user), passing no one over.
test('dispatch: nothing loaded: the least recently served user\'s oldest job', (t) => {
  const lastServed = new Map([['uA', 5], ['uB', 2]]);
  const choice = chooseFair(input([job('a1', 'uA', 1, ['X']), job('b1', 'uB', 2, ['Z']), job('b2', 'uB', 3, ['Z'])], { lastServed }));
  t.deepEqual(choice, { id: 'b1', reason: 'fair', skipped: [] });
});

// Pins: shortest-queue is arrival order, whoever was served last and whatever the pool's listing order.
test('dispatch: shortest-queue takes jobs in arrival order', (t) => {
  const waiting = [job('b1', 'uB', 2), job('a1', 'uA', 1)];
  const lastServed = new Map([['uA', 9]]);
  t.deepEqual(chooseJob('shortest-queue', input(waiting, { lastServed })), { id: 'a1', reason: 'arrival', skipped: [] });
  t.deepEqual(chooseJob('fair', input(waiting, { lastServed })), { id: 'b1', reason: 'fair', skipped: [] });
});

// ---------------------------------------------------------------- queue view

// Pins: a generation message's view: attributes, job and user from the body, the body as JSON, no reason (null, not absent).
test('queue view: a generation message', (t) => {
  const body = { jobId: 'j-1', userId: 'u-1' };
  t.deepEqual(viewOfMessage({ id: 'm1', body, attributes: { TaskType: 'generation', Environment: 'prod' } }), {
    id: 'm1',
    taskType: 'generation',
    environment: 'prod',
    jobId: 'j-1',
    userId: 'u-1',
    summary: '{"jobId":"j-1","userId":"u-1"}',
    reason: null,
  });
});

// Pins: a malformed message still has a view: no attributes read as '', no body as "null", fields that are not strings as null.
test('queue view: malformed messages', (t) => {
  t.deepEqual(viewOfMessage({ id: 'm2', body: undefined, attributes: {}, reason: 'rejected' }), {
    id: 'm2',
    taskType: '',
    environment: '',
    jobId: null,
    userId: null,
    summary: 'null',
    reason: 'rejected',
  });
  t.like(viewOfMessage({ id: 'm3', body: null, attributes: { TaskType: 'generation' } }), { jobId: null, userId: null, summary: 'null' });
  t.like(viewOfMessage({ id: 'm4', body: { jobId: 42, userId: ['u'] }, attributes: { TaskType: 'generation' } }), { jobId: null, userId: null });
});

// ---------------------------------------------------------------- storage keys

// Pins: each broken key is told its own problem (the text reaches a failed job's error as "An output could not be stored: ...").
test('storage key: each problem named', (t) => {
  const cases: [unknown, string][] = [
    ['', 'must be a non-empty string'],
    [42, 'must be a non-empty string'],
    ['/outputs/a.png', 'must be relative (no leading /)'],
    ['outputs/../a.png', 'must not contain . or .. segments'],
    ['outputs/./a.png', 'must not contain . or .. segments'],
    ['outputs//a.png', 'must not contain empty segments (// or a trailing /)'],
    ['outputs/.meta', 'must not contain segments starting with a dot'],
  ];
  for (const [key, problem] of cases) t.is(storageKeyProblem(key), problem, String(key));
  t.is(storageKeyProblem('outputs/u/j/file.png'), null);
});

// Pins: the limits are in bytes and inclusive: a 1024-byte key and a 200-byte segment are fine, one byte more is not;
// a segment of 101 two-byte characters (202 bytes) is too long.
test('storage key: byte limits, inclusive', (t) => {
  const segment = (bytes: number) => 'a'.repeat(bytes);
  const key1024 = [segment(200), segment(200), segment(200), segment(200), segment(200), segment(19)].join('/');
  t.is(Buffer.byteLength(key1024), 1024);
  t.is(storageKeyProblem(key1024), null);
  t.is(storageKeyProblem(`${key1024}b`), 'must be at most 1024 bytes');
  t.is(storageKeyProblem(`x/${segment(200)}`), null);
  t.is(storageKeyProblem(`x/${segment(201)}`), 'segments must be at most 200 bytes');
  t.is(storageKeyProblem(`x/${'é'.repeat(101)}`), 'segments must be at most 200 bytes');
});

// Pins: assertStorageKey throws InvalidStorageKeyError naming key and problem; a good key passes.
test('storage key: assertStorageKey throws on a bad key only', (t) => {
  const error = t.throws(() => assertStorageKey('a//b'), { instanceOf: InvalidStorageKeyError });
  t.is(error?.message, 'Invalid storage key "a//b": must not contain empty segments (// or a trailing /)');
  t.notThrows(() => assertStorageKey('a/b'));
});
