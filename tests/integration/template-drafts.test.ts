/**
 * Issue 24, the administrator side over HTTP: a new template is a draft users neither see nor run; publishing
 * checks it is complete; taking it back to a draft hides it again; only administrators may do either; every
 * change is in the audit log.
 */
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { DATABASES, type TestDatabase } from '../support/databases.ts';
import { sharedAdminApp } from '../support/admin-app.ts';
import type { TestClient } from '../support/test-client.ts';

const ADMIN = 'drafts-admin@example.com';

const workflow = () => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 64, height: 64, batch_size: 1, color: 0 } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'test' } },
  '3': { class_type: 'PrimitiveString', inputs: { value: 'hello' } },
  '4': { class_type: 'PreviewAny', inputs: { source: ['3', 0] } },
});
const parameterMap = () => ({ prompt: { preset: 'prompt', node_id: '3', input_name: 'value', required: true } });

function suite(db: TestDatabase): void {
  const title = (name: string) => `[${db}] ${name}`;
  const ctx = sharedAdminApp(db, ADMIN);

  const draft = async (admin: TestClient) => {
    const created = await admin.post('/workflow-templates', { name: `Draft ${randomUUID()}`, category: 'text-to-image', workflow: workflow(), cost: 0, outputType: 'image' });
    if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
    return created.body as { id: string; status: string; publishedAt: string | null };
  };
  const catalogueIds = async (client: TestClient) => ((await client.get('/templates')).body as { id: string }[]).map((x) => x.id);

  test.serial(title('a draft is invisible and unusable for users until published; unpublish hides it again'), async (t) => {
    const { admin, user } = await ctx();
    const template = await draft(admin);
    t.like(template, { status: 'draft', publishedAt: null });
    t.deepEqual((template as unknown as { requiredParameters: string[] }).requiredParameters, ['prompt']);
    t.is((await admin.put(`/workflow-templates/${template.id}/parameter-map`, parameterMap())).status, 200);

    t.false((await catalogueIds(user)).includes(template.id));
    t.is((await user.get(`/templates/${template.id}`)).status, 404);
    const refused = await user.post('/generate', { templateId: template.id, parameters: { prompt: 'a fox' } });
    t.is(refused.status, 400, JSON.stringify(refused.body));
    t.like(refused.body.details?.[0], { field: 'templateId' });

    const published = await admin.post(`/templates/${template.id}/publish`, {});
    t.is(published.status, 200, JSON.stringify(published.body));
    t.is(published.body.status, 'published');
    t.is(new Date(published.body.publishedAt).toISOString(), published.body.publishedAt);
    t.true((await catalogueIds(user)).includes(template.id));
    t.is((await user.get(`/templates/${template.id}`)).status, 200);
    const accepted = await user.post('/generate', { templateId: template.id, parameters: { prompt: 'a fox' } });
    t.is(accepted.status, 202, JSON.stringify(accepted.body));

    const back = await admin.post(`/templates/${template.id}/unpublish`, {});
    t.is(back.status, 200);
    t.like(back.body, { status: 'draft', publishedAt: null });
    t.false((await catalogueIds(user)).includes(template.id));
    t.is((await user.post('/generate', { templateId: template.id, parameters: { prompt: 'again' } })).status, 400);
    t.is((await admin.get(`/workflow-templates/${template.id}`)).body.status, 'draft');
  });

  test.serial(title('publishing an incomplete template is a 400 naming what is missing; unknown ids 404'), async (t) => {
    const { admin } = await ctx();
    const template = await draft(admin);
    const refused = await admin.post(`/templates/${template.id}/publish`, {});
    t.is(refused.status, 400);
    t.like(refused.body, { statusCode: 400, error: 'Bad Request', message: 'The template is not complete' });
    t.is(refused.body.details[0].field, 'parameter_map');
    t.is((await admin.get(`/workflow-templates/${template.id}`)).body.status, 'draft', 'nothing changed');
    t.is((await admin.post(`/templates/${randomUUID()}/publish`, {})).status, 404);
    t.is((await admin.post('/templates/not-a-uuid/unpublish', {})).status, 404);
  });

  test.serial(title('only administrators publish or unpublish (403 for users, 401 anonymous)'), async (t) => {
    const { app, admin, user } = await ctx();
    const template = await draft(admin);
    await admin.put(`/workflow-templates/${template.id}/parameter-map`, parameterMap());
    for (const verb of ['publish', 'unpublish']) {
      t.is((await user.post(`/templates/${template.id}/${verb}`, {})).status, 403, verb);
      t.is((await app.client().post(`/templates/${template.id}/${verb}`, {})).status, 401, verb);
    }
    t.is((await admin.get(`/workflow-templates/${template.id}`)).body.status, 'draft');
  });

  test.serial(title('every template change is in the audit log, with the administrator and the template'), async (t) => {
    const { admin, adminId } = await ctx();
    const template = await draft(admin);
    await admin.put(`/workflow-templates/${template.id}/parameter-map`, parameterMap());
    await admin.post(`/templates/${template.id}/publish`, {});
    await admin.patch(`/workflow-templates/${template.id}`, { isActive: false });
    await admin.patch(`/workflow-templates/${template.id}`, { workflow: { ...workflow(), '1': { class_type: 'EmptyImage', inputs: { width: 32, height: 64, batch_size: 1, color: 0 } } } });
    await admin.post(`/templates/${template.id}/unpublish`, {});
    t.is((await admin.delete(`/workflow-templates/${template.id}`)).status, 204);
    const log = await admin.get('/admin/audit?limit=100');
    t.is(log.status, 200);
    const mine = (log.body.items as { action: string; actorId: string; details: { templateId?: string; version?: number; changed?: string[] } }[])
      .filter((entry) => entry.details.templateId === template.id)
      .reverse();
    t.deepEqual(
      mine.map((entry) => [entry.action, entry.actorId, entry.details.version, entry.details.changed]),
      [
        ['template.create', adminId, 1, []],
        ['template.parameter_map', adminId, 2, ['parameterMap']],
        ['template.publish', adminId, 2, ['publishedAt']],
        ['template.deactivate', adminId, 2, ['isActive']],
        ['template.update', adminId, 3, ['workflow']],
        ['template.unpublish', adminId, 3, ['publishedAt']],
        ['template.delete', adminId, 3, []],
      ],
    );
  });
}

for (const db of DATABASES) suite(db);
