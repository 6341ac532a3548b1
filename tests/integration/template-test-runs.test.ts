/**
 * Issue 24, ADR 043: an administrator test-runs a template (a draft too) before publishing it. The run goes through
 * the queue, the worker and the engine like any job, with its events on the administrator's socket, but no coin
 * moves (not when it is queued, not when it fails), it is in nobody's job list or output history, and only
 * administrators (sessions, or keys with the `admin` scope) may start or list one.
 */
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { DATABASES, type TestDatabase } from '../support/databases.ts';
import { openSocket } from '../support/socket-client.ts';
import { sharedAdminApp } from '../support/admin-app.ts';
import type { TestClient } from '../support/test-client.ts';

const ADMIN = 'test-runs-admin@example.com';

const workflow = () => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 48, height: 32, batch_size: 1, color: 0x00ff00 } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'test-run' } },
  '3': { class_type: 'PrimitiveString', inputs: { value: 'hello' } },
  '4': { class_type: 'PreviewAny', inputs: { source: ['3', 0] } },
});
const parameterMap = () => ({ prompt: { preset: 'prompt', node_id: '3', input_name: 'value', required: true } });
/** Valid when saved, fails in the engine: a batch of a 3-channel and a 4-channel image. */
const failingWorkflow = () => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0 } },
  '2': { class_type: 'SolidMask', inputs: { value: 1, width: 8, height: 8 } },
  '3': { class_type: 'JoinImageWithAlpha', inputs: { image: ['1', 0], alpha: ['2', 0] } },
  '4': { class_type: 'ImageBatch', inputs: { image1: ['1', 0], image2: ['3', 0] } },
  '5': { class_type: 'SaveImage', inputs: { images: ['4', 0], filename_prefix: 'fail' } },
});

interface Money {
  balance: number;
  ledger: number;
}

function suite(db: TestDatabase): void {
  const title = (name: string) => `[${db}] ${name}`;
  const ctx = sharedAdminApp(db, ADMIN);

  const draft = async (admin: TestClient, body: Record<string, unknown> = {}, map: Record<string, unknown> | null = parameterMap()) => {
    const created = await admin.post('/workflow-templates', { name: `Test run ${randomUUID()}`, category: 'text-to-image', workflow: workflow(), cost: 7, outputType: 'image', ...body });
    if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
    const mapped = map ? await admin.put(`/workflow-templates/${created.body.id}/parameter-map`, map) : created;
    if (mapped.status !== 200 && mapped.status !== 201) throw new Error(`map: ${mapped.status} ${JSON.stringify(mapped.body)}`);
    return mapped.body as { id: string; status: string; version: number; name: string };
  };
  const money = async (client: TestClient): Promise<Money> => ({
    balance: (await client.get('/auth/profile')).body.coinBalance,
    ledger: (await client.get('/coin/transactions?limit=100')).body.total,
  });

  test.serial(title('a test run of a draft runs with events and outputs, charged to nobody, and is in no job list or history'), async (t) => {
    const { admin, adminId } = await ctx();
    const template = await draft(admin);
    t.is(template.status, 'draft');
    const before = await money(admin);
    const socket = await openSocket(admin);
    t.teardown(() => socket.close());

    const res = await admin.post(`/admin/templates/${template.id}/test-runs`, { parameters: { prompt: 'a test fox' } });
    t.is(res.status, 202, JSON.stringify(res.body));
    t.like(res.body, { status: 'queued', templateId: template.id, templateVersion: template.version, testRun: true, paidCoins: 0, refundedCoins: 0 });
    const jobId = res.body.id as string;
    const completed = await socket.waitFor((m) => m.type === 'job.completed' && m.jobId === jobId);
    t.is((completed.outputs as unknown[]).length, 1);
    const types = socket.messages.filter((m) => m.jobId === jobId).map((m) => m.type);
    t.true(types.includes('job.queued') && types.includes('job.started'), types.join());

    const job = await admin.get(`/generate/${jobId}`);
    t.like(job.body, { status: 'succeeded', testRun: true, paidCoins: 0, refundedCoins: 0 });
    t.deepEqual(job.body.textOutputs.map((o: { text: string }) => o.text), ['a test fox']);
    t.deepEqual(await money(admin), before, 'no coin moved, no ledger row');
    t.false((await admin.get('/generate?limit=100')).body.items.some((j: { id: string }) => j.id === jobId), 'not in the job list');
    const history = await admin.get('/my-outputs?limit=100');
    t.false(history.body.items.some((item: { jobId: string }) => item.jobId === jobId), 'not in the output history');

    const runs = await admin.get(`/admin/templates/${template.id}/test-runs`);
    t.is(runs.status, 200);
    t.deepEqual(runs.body.map((run: { id: string }) => run.id), [jobId]);
    const [output] = runs.body[0].outputs as { mimeType: string; width: number; height: number; viewUrl: string }[];
    t.like(output, { mimeType: 'image/png', width: 48, height: 32 });
    t.is((await fetch(output!.viewUrl)).status, 200, 'the signed view URL serves the output');
    t.is((await admin.get(`/workflow-templates/${template.id}`)).body.status, 'draft', 'still a draft');

    const log = await admin.get('/admin/audit?limit=100');
    const entry = (log.body.items as { action: string; actorId: string; details: Record<string, unknown> }[]).find((e) => e.action === 'template.test_run' && e.details.jobId === jobId);
    t.like(entry, { actorId: adminId, details: { templateId: template.id, name: template.name, version: template.version, jobId } });
  });

  test.serial(title('a test run that fails moves no coin either; one cancelled neither'), async (t) => {
    const { admin } = await ctx();
    const template = await draft(admin, { workflow: failingWorkflow() }, null);
    const before = await money(admin);
    const socket = await openSocket(admin);
    t.teardown(() => socket.close());
    const res = await admin.post(`/admin/templates/${template.id}/test-runs`, {});
    t.is(res.status, 202, JSON.stringify(res.body));
    const failed = await socket.waitFor((m) => m.type === 'job.failed' && m.jobId === res.body.id);
    t.is((failed.error as { code: string }).code, 'ENGINE.EXECUTION');
    t.is(failed.refunded, 0);
    t.like((await admin.get(`/generate/${res.body.id}`)).body, { status: 'failed', paidCoins: 0, refundedCoins: 0 });
    t.deepEqual(await money(admin), before, 'nothing charged, nothing refunded');
    t.like((await admin.get(`/admin/templates/${template.id}/test-runs`)).body[0], { id: res.body.id, status: 'failed', outputs: [] });

    const other = await draft(admin);
    const queued = await admin.post(`/admin/templates/${other.id}/test-runs`, { parameters: { prompt: 'stop' } });
    t.is(queued.status, 202);
    const cancelled = await admin.post(`/generate/${queued.body.id}/cancel`);
    t.true([200, 409].includes(cancelled.status), JSON.stringify(cancelled.body));
    const ended = await socket.waitFor((m) => ['job.cancelled', 'job.completed'].includes(m.type) && m.jobId === queued.body.id);
    if (ended.type === 'job.cancelled') t.is(ended.refunded ?? 0, 0);
    t.deepEqual(await money(admin), before);
  });

  test.serial(title('users get 403 and start nothing; keys need the admin scope; unknown templates 404, bad parameters 400'), async (t) => {
    const { app, admin, user } = await ctx();
    const template = await draft(admin);
    const userBefore = await money(user);
    const refused = await user.post(`/admin/templates/${template.id}/test-runs`, { parameters: { prompt: 'free?' } });
    t.is(refused.status, 403, JSON.stringify(refused.body));
    t.like(refused.body, { statusCode: 403, error: 'Forbidden' });
    t.is((await user.get(`/admin/templates/${template.id}/test-runs`)).status, 403);
    t.is((await app.client().post(`/admin/templates/${template.id}/test-runs`, {})).status, 401);
    t.deepEqual(await money(user), userBefore);
    t.is((await user.get('/generate')).body.total, 0, 'no job was made for the user');
    t.deepEqual((await admin.get(`/admin/templates/${template.id}/test-runs`)).body, [], 'nor a test run');

    const mint = async (scopes: string[]) => {
      const made = await admin.post('/api/v1/api-keys', { name: `key ${scopes.join('+')}`, scopes });
      if (made.status !== 201) throw new Error(`key: ${made.status} ${JSON.stringify(made.body)}`);
      const caller = app.client();
      caller.bearer = made.body.key;
      return caller;
    };
    const plain = await mint(['generate', 'history']);
    const noScope = await plain.post(`/admin/templates/${template.id}/test-runs`, { parameters: { prompt: 'key' } });
    t.is(noScope.status, 403, JSON.stringify(noScope.body));
    t.is((await plain.get(`/admin/templates/${template.id}/test-runs`)).status, 403);
    const adminKey = await mint(['admin']);
    const byKey = await adminKey.post(`/admin/templates/${template.id}/test-runs`, { parameters: { prompt: 'key' } });
    t.is(byKey.status, 202, JSON.stringify(byKey.body));
    t.is(byKey.body.testRun, true);

    t.is((await admin.post(`/admin/templates/${randomUUID()}/test-runs`, {})).status, 404);
    t.is((await admin.get('/admin/templates/not-a-uuid/test-runs')).status, 404);
    t.is((await admin.get(`/admin/templates/${randomUUID()}/test-runs`)).status, 404, 'the test runs of an unknown template');
    const bad = await admin.post(`/admin/templates/${template.id}/test-runs`, { parameters: { nope: 1 } });
    t.is(bad.status, 400, JSON.stringify(bad.body));
  });
}

for (const db of DATABASES) suite(db);
