/**
 * A job's `job.started` event tells what should be left of it (ADR 037): the real application with its worker and the
 * builtin engine, a known history of past runs, and the user's socket. Every number is worked out by hand.
 */
import test from 'ava';
import { DATABASES } from '../support/databases.ts';
import { addTemplate, pastSuccess, schedulingApp, submitRaw } from '../support/scheduling-app.ts';
import { openSocket } from '../support/socket-client.ts';

for (const db of DATABASES) {
  test.serial(`[${db}] job.started carries the job's run estimate as etaSeconds: null before any run is known, then the median of its template's runs`, async (t) => {
    const { app, user, userId } = await schedulingApp(t, db, { ROLES: 'api,worker' });
    const socket = await openSocket(user);
    t.teardown(() => socket.close());
    const started = async (jobId: string) => {
      const event = await socket.waitFor((m) => m.type === 'job.started' && m.jobId === jobId);
      await socket.waitFor((m) => m.type === 'job.completed' && m.jobId === jobId);
      return event.etaSeconds;
    };

    // No job has ever succeeded here: nothing to learn from.
    const first = await submitRaw(user);
    t.is(first.status, 202, JSON.stringify(first.body));
    t.is(await started(first.body.id), null);

    // Template A ran 10 s, 30 s and 20 s (median 20 s); B ran 4.2 s and 5 s (median 4.6 s, told as 5).
    const [a, b] = [await addTemplate(app, 1), await addTemplate(app, 1)];
    const past = Date.now() - 3600_000;
    const runs: [string, number][] = [[a, 10_000], [a, 30_000], [a, 20_000], [b, 4_200], [b, 5_000]];
    for (const [i, [templateId, ms]] of runs.entries()) await pastSuccess(app, userId, ms, new Date(past + i * 60_000), templateId);
    const ofA = await user.post('/generate', { templateId: a, parameters: { color: 1 } });
    t.is(ofA.status, 202, JSON.stringify(ofA.body));
    t.is(await started(ofA.body.id), 20);
    const ofB = await user.post('/generate', { templateId: b, parameters: { color: 2 } });
    t.is(await started(ofB.body.id), 5);
  });
}
