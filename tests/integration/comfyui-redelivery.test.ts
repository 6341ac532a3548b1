import test from 'ava';
import { ComfyEngine } from '../../adapters/comfyui/comfy-engine.ts';
import { backoffSeconds } from '../../core/domain/message-delivery.ts';
import type { WorkflowGraph } from '../../core/domain/workflow-graph.types.ts';
import type { EngineRunRequest, WorkflowEngine } from '../../core/ports/workflow-engine.port.ts';
import { startComfyProtocolServer } from '../support/comfy-protocol-server.ts';
import { generationHarness } from '../support/generation-harness.ts';
import { startTcpProxy } from '../support/tcp-proxy.ts';

const blur: WorkflowGraph = {
  '1': { class_type: 'EmptyImage', inputs: { width: 512, height: 512, batch_size: 6, color: 0x808080 } },
  '2': { class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: 31, sigma: 10 } },
  '3': { class_type: 'ImageScale', inputs: { image: ['2', 0], upscale_method: 'nearest-exact', width: 16, height: 16, crop: 'disabled' } },
  '4': { class_type: 'ImageFromBatch', inputs: { image: ['3', 0], batch_index: 0, length: 1 } },
  '5': { class_type: 'SaveImage', inputs: { images: ['4', 0], filename_prefix: 'redelivered' } },
};

test.serial('a redelivered job adopts the prompt its previous attempt left running: the server ran it once, the job succeeds once, paid once', async (t) => {
  const server = await startComfyProtocolServer();
  const proxy = await startTcpProxy({ host: '127.0.0.1', port: server.port });
  t.teardown(async () => {
    await proxy.close();
    await server.close();
  });
  const options = { urls: [proxy.url], timeoutMs: 10_000, jobsPerServer: 1, unavailableWaitMs: 8000, pollMs: 50 };
  // The worker's engine: the first attempt's dies under it (its process lost the server), the second is fresh.
  let current = new ComfyEngine(options);
  const runIds: { runId: string; supersedes?: string }[] = [];
  const engine: WorkflowEngine = {
    run: (request: EngineRunRequest) => {
      runIds.push({ runId: request.runId, ...(request.supersedes ? { supersedes: request.supersedes } : {}) });
      return current.run(request);
    },
    check: () => current.check(),
    close: () => current.close(),
  };
  const h = await generationHarness({ engine });
  t.teardown(() => h.dispose());
  const userId = await h.newUser(10);
  const templateId = await h.addTemplate(4, blur, {});
  const submitted = await h.submit.execute({ userId, role: 'user', templateId });
  if (!submitted.ok) return t.fail(JSON.stringify(submitted));
  const jobId = submitted.value.job.id;

  const first = h.run.execute(h.delivery(jobId, 1));
  for (let i = 0; i < 200; i++) {
    const queue = (await (await fetch(`${server.url}/queue`)).json()) as { queue_running: unknown[] };
    if (queue.queue_running.length > 0) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const dying = current;
  current = new ComfyEngine(options);
  await dying.close();
  t.like(await first, { action: 'retry' }, 'the first attempt ended as a transient failure');
  t.is((await h.repos.jobs.findById(jobId))!.status, 'running');

  t.deepEqual(await h.run.execute(h.delivery(jobId, 2)), { action: 'ack' });
  t.is(runIds.length, 2);
  t.is(runIds[1]!.supersedes, runIds[0]!.runId, 'the second attempt names the first attempt run id');
  t.is(proxy.count('POST /prompt '), 1, 'the server received the prompt once');
  const job = await h.repos.jobs.findById(jobId);
  t.is(job!.status, 'succeeded');
  t.is(job!.runId, runIds[1]!.runId);
  t.is(await h.balance(userId), 6, 'paid once, no refund');
  t.is((await h.repos.history.listForJob(jobId)).length, 1, 'one stored output');
  t.is((await h.repos.jobs.recentRunTimes(templateId, 20, [1])).length, 1, 'the job records the server that ran it (1)');
  await current.close();
});

test.serial('the server restarts under a running job: the attempt is retried, the retry runs it anew, the job succeeds once with one output, paid once', async (t) => {
  const first = await startComfyProtocolServer();
  const engine = new ComfyEngine({ urls: [first.url], timeoutMs: 10_000, jobsPerServer: 1, unavailableWaitMs: 8000, pollMs: 50 });
  const h = await generationHarness({ engine });
  t.teardown(() => h.dispose());
  const userId = await h.newUser(10);
  const templateId = await h.addTemplate(4, blur, {});
  const submitted = await h.submit.execute({ userId, role: 'user', templateId });
  if (!submitted.ok) return t.fail(JSON.stringify(submitted));
  const jobId = submitted.value.job.id;

  const attempt = h.run.execute(h.delivery(jobId, 1));
  for (let i = 0; i < 200; i++) {
    const queue = (await (await fetch(`${first.url}/queue`)).json()) as { queue_running: unknown[] };
    if (queue.queue_running.length > 0) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await first.stop();
  const second = await startComfyProtocolServer({ port: first.port });
  t.teardown(async () => {
    await second.close();
    await first.close();
  });
  t.like(await attempt, { action: 'retry' });
  const waiting = await h.repos.jobs.findById(jobId);
  t.is(waiting!.status, 'running');
  t.regex(waiting!.statusText ?? '', /Retrying after a temporary problem/);
  // The harness clock stands still: the retry is due the first backoff (1 s) from now.
  t.deepEqual(waiting!.retryAt, new Date(Date.parse('2026-01-01T00:00:00Z') + backoffSeconds(1) * 1000), 'the job knows when it runs again');

  t.deepEqual(await h.run.execute(h.delivery(jobId, 2)), { action: 'ack' });
  const job = await h.repos.jobs.findById(jobId);
  t.is(job!.status, 'succeeded');
  t.is(job!.retryAt, null, 'the retry started: no longer waiting');
  t.is((await h.repos.history.listForJob(jobId)).length, 1);
  t.is(await h.balance(userId), 6, 'paid once, no refund');
  const history = (await (await fetch(`${second.url}/history`)).json()) as Record<string, unknown>;
  t.deepEqual(Object.keys(history), [job!.runId], 'the restarted server ran the retry once');
});
