import { randomUUID } from 'node:crypto';
import test from 'ava';
import { DATABASES } from '../support/databases.ts';
import { startTestApp } from '../support/test-app.ts';
import type { TestClient } from '../support/test-client.ts';

const solidImage = async (client: TestClient): Promise<string> =>
  ((await client.get('/templates')).body as { id: string; name: string }[]).find((tpl) => tpl.name === 'Solid colour image')!.id;

for (const db of DATABASES) {
  test.serial(`[${db}] a user's queued and running jobs are capped: of 12 parallel submits, 3 are queued and 9 answered 429 with Retry-After`, async (t) => {
    // API only: nothing runs, so every accepted job stays queued.
    const app = await startTestApp(db, { ROLES: 'api', MAX_ACTIVE_JOBS_PER_USER: '3' });
    t.teardown(() => app.close());
    const alice = app.client();
    await alice.signUp();
    const templateId = await solidImage(alice);
    const body = { templateId, parameters: { prompt: 'p', width: 64, height: 64 } };
    const answers = await Promise.all(Array.from({ length: 12 }, (_, n) => (n % 2 === 0 ? alice.post('/generate', body) : alice.post('/generate', body, { 'Idempotency-Key': randomUUID() }))));
    const statuses = answers.map((answer) => answer.status).sort();
    t.deepEqual(statuses, [...Array(3).fill(202), ...Array(9).fill(429)]);
    const refused = answers.find((answer) => answer.status === 429)!;
    t.like(refused.body, { statusCode: 429, error: 'Too Many Requests' });
    t.regex(refused.body.message, /3 jobs queued or running/);
    t.is(refused.headers.get('retry-after'), '10');
    t.is((await alice.get('/generate?limit=50')).body.total, 3);
    t.is((await alice.get('/auth/profile')).body.coinBalance, 100 - 3, 'only the queued jobs were charged');
    // Another user is not affected.
    const bob = app.client();
    await bob.signUp();
    t.is((await bob.post('/generate', body)).status, 202);
  });

  test.serial(`[${db}] round robin: user B's one job, queued after user A's 30, finishes before A's waiting ones`, async (t) => {
    t.timeout(180_000);
    const app = await startTestApp(db, { MAX_ACTIVE_JOBS_PER_USER: '40', WORKER_CONCURRENCY: '1' });
    t.teardown(() => app.close());
    const [a, b] = [app.client(), app.client()];
    await a.signUp();
    await b.signUp();
    const templateId = await solidImage(a);
    const body = { templateId, parameters: { prompt: 'p', width: 256, height: 256 } };
    const ofA: string[] = [];
    for (let n = 0; n < 30; n++) {
      const submitted = await a.post('/generate', body);
      t.is(submitted.status, 202);
      ofA.push(submitted.body.id);
    }
    const ofB = (await b.post('/generate', body)).body.id as string;
    // A's jobs still waiting when B's was queued: in FIFO order B's would come after every one of them.
    const waiting = ((await a.get('/generate?limit=50')).body.items as { status: string }[]).filter((job) => job.status === 'queued').length;
    const finished = async (client: TestClient, id: string): Promise<number> => {
      for (;;) {
        const job = (await client.get(`/generate/${id}`)).body;
        if (job.status === 'succeeded') return Date.parse(job.updatedAt);
        if (job.status === 'failed' || job.status === 'cancelled') throw new Error(`job ${id} ${job.status}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    const bDone = await finished(b, ofB);
    const aDone = await Promise.all(ofA.map((id) => finished(a, id)));
    const afterB = aDone.filter((at) => at > bDone).length;
    t.log(`${waiting} of A's jobs were waiting when B's was queued; ${afterB} of A's 30 finished after B's`);
    t.true(waiting >= 10, `only ${waiting} of A's jobs were still waiting (the worker kept up with the submits)`);
    // Served in turn: at most the one A's job in hand and one more (a tie in place) go before B's.
    t.true(afterB >= waiting - 2, `only ${afterB} of A's ${waiting} waiting jobs finished after B's`);
  });
}
