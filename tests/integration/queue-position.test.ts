/**
 * Queue position and ETA (ADR 037) through the real application, against a known schedule: the api role only (no
 * worker, so every job stays queued until the test moves it), WORKER_CONCURRENCY=2 slots, and a history of past
 * runs with known run times. Every number below is worked out by hand from the formula in the OpenAPI document.
 */
import { setTimeout as delay } from 'node:timers/promises';
import test, { type ExecutionContext } from 'ava';
import { randomUUID } from 'node:crypto';
import { BACKENDS } from '../support/backends.ts';
import { DATABASES, type TestDatabase } from '../support/databases.ts';
import { colorMap, generationHarness } from '../support/generation-harness.ts';
import { failOnce, interceptTransactions } from '../support/faults.ts';
import { addTemplate, pastSuccess, reposOf, schedulingApp, submitRaw } from '../support/scheduling-app.ts';
import { resolve, TOKENS } from '../../bootstrap/tokens.ts';
import { QueryTypes } from 'sequelize';
import type { TestClient } from '../support/test-client.ts';
import type { ParameterMappingItem } from '../../core/domain/parameter-map.ts';

const AMQP_URL = process.env.TEST_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';

const estimateOf = async (user: TestClient, jobId: string) => {
  const { status, body } = await user.get(`/generate/${jobId}`);
  if (status !== 200) throw new Error(`GET job: ${status}`);
  return { position: body.position, etaSeconds: body.etaSeconds };
};

type Estimate = { position: number | null; etaSeconds: number | null };

/**
 * The known schedule: the user submits j1 (template A), j2 (template B), then another user j3 (raw), then the user
 * j4 (A). History: A ran 10 s, 30 s, 20 s (median 20 s); B ran 6 s, 8 s (median 7 s); every template: 10, 30, 20,
 * 6, 8 (median 10 s, a raw workflow's estimate). slots = 2.
 */
async function knownSchedule(t: ExecutionContext, db: TestDatabase, env: Record<string, string>, expected: { j1: Estimate; j2: Estimate; j3: Estimate; j4: Estimate }): Promise<void> {
  const { app, user, userId } = await schedulingApp(t, db, { WORKER_CONCURRENCY: '2', ...env });
  const other = app.client();
  await other.signUp();
  const a = await addTemplate(app, 1);
  const b = await addTemplate(app, 1);
  const past = Date.now() - 3600_000;
  const runs: [string, number][] = [[a, 10_000], [a, 30_000], [a, 20_000], [b, 6_000], [b, 8_000]];
  for (const [i, [templateId, ms]] of runs.entries()) await pastSuccess(app, userId, ms, new Date(past + i * 60_000), templateId);

  const submit = async (client: TestClient, templateId: string | null) => {
    const res = templateId ? await client.post('/generate', { templateId, parameters: { color: 1 } }) : await submitRaw(client);
    if (res.status !== 202) throw new Error(`submit: ${res.status} ${JSON.stringify(res.body)}`);
    await delay(5); // distinct creation instants: the arrival order is the submit order
    return res.body.id as string;
  };
  const j1 = await submit(user, a);
  const j2 = await submit(user, b);
  const j3 = await submit(other, null); // another user's raw workflow: it stands in line too
  const j4 = await submit(user, a);

  t.deepEqual(await estimateOf(user, j1), expected.j1);
  t.deepEqual(await estimateOf(user, j2), expected.j2);
  t.deepEqual(await estimateOf(other, j3), expected.j3);
  t.deepEqual(await estimateOf(user, j4), expected.j4);
  const listed = (await user.get('/generate?limit=10')).body.items as { id: string; position: number | null; etaSeconds: number | null }[];
  const byId = new Map(listed.map((job) => [job.id, { position: job.position, etaSeconds: job.etaSeconds }]));
  t.deepEqual(byId.get(j4), expected.j4);
  t.deepEqual(byId.get(j1), expected.j1);
  t.is(listed.filter((job) => job.position === null && job.etaSeconds === null).length, 5, 'the finished history jobs have neither');

  // j1 leaves (cancelled), j2 starts 3 s ago: j2 running 7 - 3 = 4 s left; j3 is next (in both orders), a slot is
  // free: 10; j4: the 10 s ahead fill the free slot up to j2's 4 s, the other 6 s go over both: 4 + 3 = 7, + 20 = 27
  // (j2's time left is 4 s less the moments the test takes: 5 + left / 2 stays above 6.5 s, so 27 all the same).
  t.is((await user.post(`/generate/${j1}/cancel`)).status, 200);
  const startedAt = new Date(Date.now() - 3_000);
  const runId = randomUUID();
  t.true(await reposOf(app).jobs.transition(j2, { to: 'running', runId, changes: { startedAt } }, startedAt));
  const running = await estimateOf(user, j2);
  t.is(running.position, null);
  t.true(running.etaSeconds === 4 || running.etaSeconds === 3, `4 s left, 3 on a slow machine (got ${running.etaSeconds})`);
  t.deepEqual(await estimateOf(other, j3), { position: 0, etaSeconds: 10 });
  t.deepEqual(await estimateOf(user, j4), { position: 1, etaSeconds: 27 });
  t.deepEqual(await estimateOf(user, j1), { position: null, etaSeconds: null });

  // j2 has run 7 s, past B's median (7 s) but not its 8 s run: 1 s left, not 0; j4: the free slot takes j3's 10 s up to
  // j2's 1 s, the other 9 s over both: 1 + 4.5 = 5.5, + 20 = 25.5, so 26.
  t.true(await reposOf(app).jobs.updateRunning(j2, runId, { startedAt: new Date(Date.now() - 7_000) }, new Date()));
  t.deepEqual(await estimateOf(user, j2), { position: null, etaSeconds: 1 });
  t.deepEqual(await estimateOf(user, j4), { position: 1, etaSeconds: 26 });
  // j2 has outlasted both of B's runs: its time left is unknown (null, not "done now"), and its slot counts as free:
  // j4 10 / 2 + 20 = 25.
  t.true(await reposOf(app).jobs.updateRunning(j2, runId, { startedAt: new Date(Date.now() - 9_000) }, new Date()));
  t.deepEqual(await estimateOf(user, j2), { position: null, etaSeconds: null });
  t.deepEqual(await estimateOf(user, j4), { position: 1, etaSeconds: 25 });
}

/**
 * Two signed-up users on the api-only app with the database queue, a submit of a raw workflow (distinct creation
 * instants), and what the consumers would take next: the waiting messages' jobs in the queue's own order (its poll
 * query's ORDER BY, written out here).
 */
async function twoUsersOnTheDatabaseQueue(t: ExecutionContext, db: TestDatabase) {
  const { app, user } = await schedulingApp(t, db);
  const other = app.client();
  await other.signUp();
  const database = resolve(app.app.container, TOKENS.Database);
  const submit = async (client: TestClient) => {
    const res = await submitRaw(client);
    if (res.status !== 202) throw new Error(`submit: ${res.status}`);
    await delay(5);
    return res.body.id as string;
  };
  const served = async () =>
    (
      await database.autocommit.sequelize.query<{ body: string }>(
        "SELECT body FROM queue_messages WHERE status = 'ready' AND claim_token IS NULL ORDER BY fair_seq ASC, visible_at ASC, created_at ASC",
        { type: QueryTypes.SELECT },
      )
    ).map((row) => (JSON.parse(row.body) as { jobId: string }).jobId);
  return { app, user, other, database, submit, served };
}

test('[sqlite] on RabbitMQ (FIFO) position and etaSeconds count in arrival order, as documented', async (t) => {
  // Arrival order j1, j2, j3, j4. j1: 20 s. j2: 20/2 + 7 = 17. j3: (20+7)/2 + 10 = 23.5 -> 24. j4: (20+7+10)/2 + 20 = 38.5 -> 39.
  await knownSchedule(t, 'sqlite', { QUEUE_DRIVER: 'rabbitmq', AMQP_URL, AMQP_PREFIX: `mgs-position-${randomUUID().slice(0, 8)}` }, {
    j1: { position: 0, etaSeconds: 20 },
    j2: { position: 1, etaSeconds: 17 },
    j3: { position: 2, etaSeconds: 24 },
    j4: { position: 3, etaSeconds: 39 },
  });
});

for (const db of DATABASES) {
  test(`[${db}] a job's run estimate is the median of the jobs that made its choices of the template's enum parameters`, async (t) => {
    const { app, user, userId } = await schedulingApp(t, db, { WORKER_CONCURRENCY: '2' });
    // The template lets users pick the image width: 8 (fast, 2 s) or 16 (slow, 20 and 24 s).
    const size: ParameterMappingItem = { key: 'size', type: 'enum', node_id: '1', input_name: 'width', options: [8, 16], default: 8 };
    const template = await addTemplate(app, 1, { ...colorMap(), size });
    const past = Date.now() - 3600_000;
    const runs: [number, number][] = [[8, 2_000], [16, 20_000], [8, 2_000], [16, 24_000]];
    for (const [i, [width, ms]] of runs.entries()) await pastSuccess(app, userId, ms, new Date(past + i * 60_000), template, undefined, JSON.stringify({ size: width }));
    const submit = async (width: number) => {
      const res = await user.post('/generate', { templateId: template, parameters: { color: 1, size: width } });
      if (res.status !== 202) throw new Error(`submit: ${res.status} ${JSON.stringify(res.body)}`);
      await delay(5);
      return res.body.id as string;
    };
    const slow = await submit(16);
    const fast = await submit(8);
    // slow: nothing ahead, its own median 22 s (the template's over every choice: 2, 2, 20, 24: 11 s). fast: 2 slots,
    // the slow job ahead: 22 / 2 + 2 = 13 s.
    t.deepEqual(await estimateOf(user, slow), { position: 0, etaSeconds: 22 });
    t.deepEqual(await estimateOf(user, fast), { position: 1, etaSeconds: 13 });
    const listed = (await user.get('/generate?limit=10')).body.items as { id: string; position: number | null; etaSeconds: number | null }[];
    t.deepEqual(
      listed.filter((job) => job.id === fast || job.id === slow).map((job) => [job.id, job.position, job.etaSeconds]),
      [[fast, 1, 13], [slow, 0, 22]],
      'a page of both: each estimated by its own choices',
    );
  });
}

for (const db of DATABASES) {
  test(`[${db}] on the database queue (owners in turn) position and etaSeconds follow the documented formula`, async (t) => {
    // Turns: j1 (user's 1st), j3 (other's 1st), j2 (user's 2nd), j4 (user's 3rd).
    // j1: 20 s. j3: 20/2 + 10 = 20. j2: (20+10)/2 + 7 = 22. j4: (20+10+7)/2 + 20 = 38.5 -> 39.
    await knownSchedule(t, db, {}, {
      j1: { position: 0, etaSeconds: 20 },
      j2: { position: 2, etaSeconds: 22 },
      j3: { position: 1, etaSeconds: 20 },
      j4: { position: 3, etaSeconds: 39 },
    });
  });

  test(`[${db}] on the database queue the positions are the places the queue itself serves in, also when a user's jobs are running`, async (t) => {
    const { app, user, other, submit, database, served } = await twoUsersOnTheDatabaseQueue(t, db);
    const a1 = await submit(user);
    const a2 = await submit(user);
    // a1 starts: a consumer has taken its message (held for a while) and the job runs.
    const startedAt = new Date();
    t.true(await reposOf(app).jobs.transition(a1, { to: 'running', runId: randomUUID(), changes: { startedAt } }, startedAt));
    const held = await database.autocommit.sequelize.query(`UPDATE queue_messages SET claim_token = 'held', visible_at = ? WHERE body LIKE ?`, {
      replacements: [new Date(Date.now() + 600_000).toISOString().replace('T', ' ').replace('Z', ''), `%"jobId":"${a1}"%`],
      type: QueryTypes.BULKUPDATE,
    });
    t.is(held, 1);
    const b1 = await submit(other); // the other user's first job: turn 1
    const a3 = await submit(user); // the user's third, with one running and one queued: turn 3

    t.deepEqual(await served(), [b1, a2, a3], "the other user's first job goes before the user's second: the user already has one running");
    const positions = { [a2]: (await estimateOf(user, a2)).position, [b1]: (await estimateOf(other, b1)).position, [a3]: (await estimateOf(user, a3)).position };
    t.deepEqual(positions, { [b1]: 0, [a2]: 1, [a3]: 2 });
  });

  test(`[${db}] on the database queue a cancelled job does not hold its owner's next one back`, async (t) => {
    const { user, other, submit, served } = await twoUsersOnTheDatabaseQueue(t, db);
    const a1 = await submit(user);
    t.is((await user.post(`/generate/${a1}/cancel`)).status, 200); // its message waits until a consumer drops it
    const a2 = await submit(user); // nothing queued or running: turn 1
    const b1 = await submit(other); // turn 1, later
    t.deepEqual((await served()).filter((jobId) => jobId !== a1), [a2, b1]);
    t.deepEqual([(await estimateOf(user, a2)).position, (await estimateOf(other, b1)).position], [0, 1]);
  });

  test(`[${db}] with no run ever recorded the position is known and the ETA is null`, async (t) => {
    const { user } = await schedulingApp(t, db);
    const first = (await submitRaw(user)).body.id;
    await delay(5);
    const second = (await submitRaw(user)).body.id;
    t.deepEqual(await estimateOf(user, first), { position: 0, etaSeconds: null });
    t.deepEqual(await estimateOf(user, second), { position: 1, etaSeconds: null });
  });
}

for (const backend of BACKENDS) {
  test(`[${backend}] job.queue events: one per job whose position changed, none while nothing moves`, async (t) => {
    const h = await generationHarness({ backend });
    t.teardown(() => h.dispose());
    const userId = await h.newUser(0);
    const otherId = await h.newUser(0);
    const templateId = await h.addTemplate(0);
    await pastSuccess(h.repos.jobs, userId, 12_000, new Date('2025-12-31T00:00:00Z'), templateId); // every job: 12 s (1 slot)
    const submit = async (owner: string) => {
      const submitted = await h.submit.execute({ userId: owner, role: 'user', templateId, parameters: { color: 1 } });
      if (!submitted.ok) throw new Error(submitted.code);
      h.advance(1 / 60); // one second apart: the queue order is the submit order
      return submitted.value.job.id;
    };
    const [j1, j2, j3] = [await submit(userId), await submit(otherId), await submit(userId)];
    const queueEvents = async (owner: string) => (await h.eventsOf(owner)).filter((event) => event.type === 'job.queue');

    t.is(await h.announce.execute(), 3);
    t.deepEqual(await queueEvents(userId), [
      { type: 'job.queue', jobId: j1, position: 0, etaSeconds: 12 },
      { type: 'job.queue', jobId: j3, position: 2, etaSeconds: 36 },
    ]);
    t.deepEqual(await queueEvents(otherId), [{ type: 'job.queue', jobId: j2, position: 1, etaSeconds: 24 }]);
    t.is(await h.announce.execute(), 0, 'nothing moved: nothing sent');

    t.true((await h.cancel.execute({ userId, jobId: j1 })).ok);
    t.is(await h.announce.execute(), 2);
    t.deepEqual((await queueEvents(userId)).slice(2), [{ type: 'job.queue', jobId: j3, position: 1, etaSeconds: 24 }]);
    t.deepEqual((await queueEvents(otherId)).slice(1), [{ type: 'job.queue', jobId: j2, position: 0, etaSeconds: 12 }]);
    t.is(await h.announce.execute(), 0);
  });
}

for (const backend of BACKENDS) {
  test(`[${backend}] job.queue events go out in batches of 25 per transaction; a batch that fails is announced whole by the next pass`, async (t) => {
    let transactions = 0;
    // The 27th announcement's event fails once: its batch (jobs 26 to 30) rolls back, the first batch stands.
    const { interceptor, state } = failOnce((call) => call.repo === 'events' && call.method === 'appendAll' && (call.args[1] as { type: string; position?: number }[])[0]?.position === 26);
    const h = await generationHarness({
      backend,
      uow: (inner) => {
        const intercepted = interceptTransactions(inner, interceptor);
        return { run: (work) => (transactions++, intercepted.run(work)) };
      },
    });
    t.teardown(() => h.dispose());
    const userId = await h.newUser(0);
    const templateId = await h.addTemplate(0);
    for (let i = 0; i < 30; i++) {
      const submitted = await h.submit.execute({ userId, role: 'user', templateId, parameters: { color: 1 } });
      if (!submitted.ok) throw new Error(submitted.code);
      h.advance(1 / 60);
    }
    const positions = async () => (await h.eventsOf(userId)).filter((event) => event.type === 'job.queue').map((event) => (event as { position: number }).position);

    transactions = 0;
    await t.throwsAsync(h.announce.execute(), { message: 'injected fault' });
    t.is(state.fired, 1);
    t.is(transactions, 2, 'one transaction per batch of 25');
    t.deepEqual(await positions(), Array.from({ length: 25 }, (_, i) => i), 'the first batch committed');

    transactions = 0;
    t.is(await h.announce.execute(), 5, 'the failed batch is announced by the next pass');
    t.is(transactions, 2);
    t.deepEqual(await positions(), Array.from({ length: 30 }, (_, i) => i));
    t.is(await h.announce.execute(), 0, 'nothing moved: nothing sent');
  });
}
