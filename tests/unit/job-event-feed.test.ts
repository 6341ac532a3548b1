/**
 * JobEventFeed (ADR 040) on the in-memory adapters: a resume replays the job's stored events after the seq named,
 * page by page, and live events that arrive during the replay (some of them also replayed) are delivered once, in
 * seq order; another user's job is not found.
 */
import { setImmediate as tick } from 'node:timers/promises';
import test from 'ava';
import { InProcessEventBus } from '../../adapters/memory/in-process-event-bus.ts';
import { MemoryJobRepository } from '../../adapters/memory/memory-job-repository.ts';
import { MemoryStore } from '../../adapters/memory/memory-store.ts';
import { MemoryUserEventStore } from '../../adapters/memory/memory-user-event-store.ts';
import type { UserEvent } from '../../core/domain/user-events.ts';
import { USER_EVENTS_CHANNEL, type StoredUserEvent, type UserEventStore } from '../../core/ports/user-events.port.ts';
import { JobEventFeed } from '../../core/use-cases/events/job-event-feed.service.ts';

const JOB = '11111111-1111-4111-8111-111111111111';
const OTHER = '22222222-2222-4222-8222-222222222222';
const at = new Date('2026-01-01T00:00:00Z');

async function setup() {
  const memory = new MemoryStore();
  const jobs = new MemoryJobRepository(memory);
  const events = new MemoryUserEventStore(memory);
  const bus = new InProcessEventBus();
  await jobs.create({
    id: JOB, userId: 'alice', templateId: null, templateVersion: null, status: 'running', progress: { value: 0, max: 1 }, statusText: '',
    workflow: {}, usedParameters: {}, imageRefs: [], outputType: 'image', paidCoins: 1, testRun: false, startDeadline: null, queueTurn: 1, fitChoices: '', createdAt: at,
  });
  const progress = (jobId: string, value: number): UserEvent => ({ type: 'job.progress', jobId, value, max: 10 });
  // seq 1..6: five of this job, one of another job in between.
  for (const event of [progress(JOB, 1), progress(JOB, 2), progress(OTHER, 9), progress(JOB, 3), progress(JOB, 4), progress(JOB, 5)]) await events.append('alice', event, at);
  return { jobs, events, bus, progress };
}

const publish = (bus: InProcessEventBus, stored: { seq: number; event: UserEvent }) =>
  bus.publish(USER_EVENTS_CHANNEL, { userId: 'alice', seq: stored.seq, event: stored.event, createdAt: at.toISOString() });

test('a resume replays the stored events after the seq, page by page; live ones arriving meanwhile come once, in order', async (t) => {
  const { jobs, events, bus, progress } = await setup();
  let first = true;
  const store: UserEventStore = {
    ...events,
    append: events.append.bind(events),
    appendAll: events.appendAll.bind(events),
    purgeBefore: events.purgeBefore.bind(events),
    async listSince(userId, since, max) {
      if (first) {
        first = false;
        // While the replay reads: seq 2 (late, the client saw it), seq 5 (also stored, so replayed too) and seq 7 (new) arrive live.
        await publish(bus, { seq: 2, event: progress(JOB, 2) });
        await publish(bus, { seq: 5, event: progress(JOB, 4) });
        const seven = await events.append('alice', progress(JOB, 6), at);
        await publish(bus, seven);
        await tick();
      }
      return events.listSince(userId, since, max);
    },
  };
  const feed = new JobEventFeed({ bus, store, jobs, pageSize: 2 });
  const opened = await feed.open({ userId: 'alice', jobId: JOB, since: 2 });
  if (!opened.ok) return t.fail(opened.message);
  const got: StoredUserEvent[] = [];
  await opened.value.follow((event) => got.push(event));
  t.deepEqual(got.map((e) => e.seq), [4, 5, 6, 7]);
  await publish(bus, { seq: 8, event: progress(JOB, 7) });
  await publish(bus, { seq: 9, event: progress(OTHER, 7) });
  await publish(bus, { seq: 7, event: progress(JOB, 6) });
  await tick();
  await tick();
  t.deepEqual(got.map((e) => e.seq), [4, 5, 6, 7, 8], 'live: this job only, each seq once');
  await opened.value.close();
});

test("another user's job, or no job id, is not found", async (t) => {
  const { jobs, events, bus } = await setup();
  const feed = new JobEventFeed({ bus, store: events, jobs });
  t.like(await feed.open({ userId: 'bob', jobId: JOB }), { ok: false, code: 'NOT_FOUND' });
  t.like(await feed.open({ userId: 'alice', jobId: 'not-a-job' }), { ok: false, code: 'NOT_FOUND' });
  t.like(await feed.open({ userId: 'alice', jobId: JOB.toUpperCase() }), { ok: true });
});

test('opened without since, a stream replays nothing: only the events after it was opened', async (t) => {
  const { jobs, events, bus, progress } = await setup();
  const feed = new JobEventFeed({ bus, store: events, jobs });
  const opened = await feed.open({ userId: 'alice', jobId: JOB });
  if (!opened.ok) return t.fail(opened.message);
  const got: StoredUserEvent[] = [];
  await opened.value.follow((event) => got.push(event));
  const seven = await events.append('alice', progress(JOB, 6), at);
  await publish(bus, seven);
  await tick();
  // Pins: the five stored events of the job (seq 1..5) are history the client did not ask for.
  t.deepEqual(got.map((e) => e.seq), [7]);
  await opened.value.close();
});

test('live events that arrive out of order during the replay are delivered in seq order, none dropped', async (t) => {
  const { jobs, events, bus, progress } = await setup();
  let first = true;
  const store: UserEventStore = {
    ...events,
    append: events.append.bind(events),
    appendAll: events.appendAll.bind(events),
    purgeBefore: events.purgeBefore.bind(events),
    async listSince(userId, since, max) {
      const page = await events.listSince(userId, since, max);
      if (first) {
        first = false;
        // Committed after the page was read, then published by two processes: 8 overtakes 7.
        const seven = await events.append('alice', progress(JOB, 6), at);
        const eight = await events.append('alice', progress(JOB, 7), at);
        await publish(bus, eight);
        await publish(bus, seven);
        await tick();
      }
      return page;
    },
  };
  const feed = new JobEventFeed({ bus, store, jobs });
  const opened = await feed.open({ userId: 'alice', jobId: JOB, since: 4 });
  if (!opened.ok) return t.fail(opened.message);
  const got: StoredUserEvent[] = [];
  await opened.value.follow((event) => got.push(event));
  // Pins: replayed and held events are merged by seq, so the late 7 is not dropped as older than 8.
  t.deepEqual(got.map((e) => e.seq), [5, 6, 7, 8]);
  await opened.value.close();
});

// Pins that a stream refused (no such job for this user) leaves no live subscription behind on the bus.
test('a stream refused as not found leaves no subscription on the bus', async (t) => {
  const { jobs, events, bus } = await setup();
  let live = 0;
  const counting: typeof bus = Object.assign(Object.create(bus) as typeof bus, {
    async subscribe(channel: string, handler: (payload: unknown) => void) {
      const unsubscribe = await bus.subscribe(channel, handler);
      live += 1;
      return async () => {
        live -= 1;
        await unsubscribe();
      };
    },
  });
  const feed = new JobEventFeed({ bus: counting, store: events, jobs });
  t.like(await feed.open({ userId: 'bob', jobId: JOB }), { ok: false, code: 'NOT_FOUND' });
  t.is(live, 0);
  const opened = await feed.open({ userId: 'alice', jobId: JOB });
  t.is(live, 1);
  if (opened.ok) await opened.value.close();
  t.is(live, 0);
});

// Pins that a job id given in upper case streams the job's events (stored and published in lower case).
test('a stream opened with the job id in upper case finds the job and gets its stored and live events', async (t) => {
  const { jobs, events, bus, progress } = await setup();
  const lettered = 'abcdef12-3456-4789-8abc-def012345678';
  await jobs.create({
    id: lettered, userId: 'alice', templateId: null, templateVersion: null, status: 'running', progress: { value: 0, max: 1 }, statusText: '',
    workflow: {}, usedParameters: {}, imageRefs: [], outputType: 'image', paidCoins: 1, testRun: false, startDeadline: null, queueTurn: 2, fitChoices: '', createdAt: at,
  });
  const stored = await events.append('alice', progress(lettered, 1), at);
  const feed = new JobEventFeed({ bus, store: events, jobs });
  const opened = await feed.open({ userId: 'alice', jobId: lettered.toUpperCase(), since: 0 });
  if (!opened.ok) return t.fail(opened.message);
  const got: StoredUserEvent[] = [];
  await opened.value.follow((event) => got.push(event));
  const live = await events.append('alice', progress(lettered, 2), at);
  await publish(bus, live);
  await tick();
  t.deepEqual(got.map((e) => e.seq), [stored.seq, live.seq]);
  await opened.value.close();
});
