import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import { JsonLogger } from '../../adapters/logging/json-logger.ts';
import { failingWorkflow } from '../support/generation-harness.ts';
import { startTestApp } from '../support/test-app.ts';

// An operator reading a worker's log at LOG_LEVEL=info sees each job it takes and how each ended.
test('the worker logs at info each job it takes (job id, template, attempt) and how it ended (outcome, duration)', async (t) => {
  const lines: Record<string, unknown>[] = [];
  const logger = new JsonLogger('info', { service: 'media-gen' }, (line) => void lines.push(JSON.parse(line) as Record<string, unknown>));
  const app = await startTestApp('sqlite', { ADMIN_EMAILS: 'ops@example.com' }, { logger });
  t.teardown(() => app.close());
  const alice = app.client();
  await alice.signUp({ email: 'ops@example.com' });
  const image = (await alice.get('/templates')).body.find((tpl: { name: string }) => tpl.name === 'Solid colour image');
  const submitted = await alice.post('/generate', { templateId: image.id, parameters: { prompt: 'logged', width: 64, height: 64, color: 0x00ff00 } });
  t.is(submitted.status, 202, JSON.stringify(submitted.body));
  const jobId = submitted.body.id as string;
  const failing = await alice.post('/generate', { workflow: failingWorkflow() });
  t.is(failing.status, 202, JSON.stringify(failing.body));
  const failedId = failing.body.id as string;
  const endedOf = (id: string) => lines.filter((line) => line.msg === 'job ended' && line.jobId === id);
  const deadline = Date.now() + 60_000;
  while ((endedOf(jobId).length === 0 || endedOf(failedId).length === 0) && Date.now() < deadline) await sleep(100);

  const taken = lines.filter((line) => line.msg === 'job taken' && line.jobId === jobId);
  const ended = lines.filter((line) => line.msg === 'job ended' && line.jobId === jobId);
  t.is(taken.length, 1);
  t.is(ended.length, 1);
  t.like(taken[0], { level: 'info', jobId, templateId: image.id, templateVersion: 1, attempt: 1, component: 'worker' });
  t.like(ended[0], { level: 'info', jobId, templateId: image.id, attempt: 1, outcome: 'succeeded' });
  t.is(typeof ended[0]!.durationMs, 'number');
  t.true((ended[0]!.durationMs as number) >= 0);
  t.true(lines.indexOf(taken[0]!) < lines.indexOf(ended[0]!));
  t.is((await alice.get(`/generate/${jobId}`)).body.status, 'succeeded');

  // A job that fails on the engine ends as failed (not retried: the workflow itself is wrong).
  t.like(lines.find((line) => line.msg === 'job taken' && line.jobId === failedId), { level: 'info', templateId: null, attempt: 1 });
  t.deepEqual(endedOf(failedId).map((line) => [line.level, line.outcome]), [['info', 'failed']]);
  t.is((await alice.get(`/generate/${failedId}`)).body.status, 'failed');
});
