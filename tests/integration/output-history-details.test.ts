import { randomUUID } from 'node:crypto';
import test from 'ava';
import { DATABASES } from '../support/databases.ts';
import { startTestApp } from '../support/test-app.ts';
import type { TestClient } from '../support/test-client.ts';

// GET /my-outputs names each output's template (issue 24), and a seed whose default is -1 ("random")
// can be submitted as -1: the job runs with a drawn seed, which the output's parameters keep.
const ADMIN = 'admin@example.com';

const seededWorkflow = () => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 64, height: 64, batch_size: 1, color: 0 } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'seeded' } },
  '3': { class_type: 'PrimitiveString', inputs: { value: 'hello' } },
  '4': { class_type: 'PreviewAny', inputs: { source: ['3', 0] } },
  '5': { class_type: 'PrimitiveInt', inputs: { value: 7 } },
  '6': { class_type: 'PreviewAny', inputs: { source: ['5', 0] } },
});

async function finished(client: TestClient, jobId: string): Promise<{ status: string; textOutputs: { text: string }[] }> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const job = await client.get(`/generate/${jobId}`);
    if (job.body.status !== 'queued' && job.body.status !== 'running') return job.body;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${job.body.status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

for (const db of DATABASES) {
  test.serial(`[${db}] history items carry the template's name (null once deleted); a seed defaulting to -1 is accepted as -1`, async (t) => {
    const app = await startTestApp(db, { ADMIN_EMAILS: ADMIN, SEED_TEMPLATES: 'false' });
    t.teardown(() => app.close());
    const admin = app.client();
    await admin.signUp({ email: ADMIN });
    const user = app.client();
    await user.signUp();

    const name = `Seeded square ${randomUUID().slice(0, 8)}`;
    const created = await admin.post('/workflow-templates', { name, category: 'text-to-image', workflow: seededWorkflow(), cost: 1, outputType: 'image' });
    t.is(created.status, 201, JSON.stringify(created.body));
    const map = await admin.put(`/workflow-templates/${created.body.id}/parameter-map`, {
      prompt: { preset: 'prompt', node_id: '3', input_name: 'value', required: true },
      seed: { preset: 'seed', node_id: '5', input_name: 'value' },
    });
    t.is(map.status, 200, JSON.stringify(map.body));
    // A new template is a draft (ADR 039): users get it once it is published.
    t.is((await admin.post(`/templates/${created.body.id}/publish`, {})).status, 200);
    const listed = (await user.get('/templates')).body.find((template: { id: string }) => template.id === created.body.id);
    t.like(listed.parameters.find((parameter: { key: string }) => parameter.key === 'seed'), { type: 'seed', default: -1 });

    const submitted = await user.post('/generate', { templateId: created.body.id, parameters: { prompt: 'a seeded square', seed: -1 } });
    t.is(submitted.status, 202, JSON.stringify(submitted.body));
    const job = await finished(user, submitted.body.id);
    t.is(job.status, 'succeeded', JSON.stringify(job));

    const history = await user.get('/my-outputs');
    t.is(history.status, 200);
    t.is(history.body.items.length, 1);
    const item = history.body.items[0];
    t.is(item.templateName, name);
    t.is(item.templateId, created.body.id);
    t.is(item.usedParameters.prompt, 'a seeded square');
    const seed = item.usedParameters.seed as number;
    t.true(Number.isInteger(seed) && seed >= 0, `drawn seed ${seed}`);
    t.true(job.textOutputs.some((output) => output.text === String(seed)), 'the workflow ran with the drawn seed');

    // A seed below -1 is still refused, with the contract's error body.
    const refused = await user.post('/generate', { templateId: created.body.id, parameters: { prompt: 'x', seed: -2 } });
    t.is(refused.status, 400);
    t.like(refused.body, { statusCode: 400, error: 'Bad Request' });
    t.true(JSON.stringify(refused.body.details).includes('parameters.seed'), JSON.stringify(refused.body));

    t.is((await admin.delete(`/workflow-templates/${created.body.id}`)).status, 204);
    const after = await user.get('/my-outputs');
    t.is(after.body.items[0].templateName, null);
    t.is(after.body.items[0].templateId, created.body.id);
  });
}
