import { randomUUID } from 'node:crypto';
import test from 'ava';
import sharp from 'sharp';
import { startComfyProtocolServer, type StartedComfyServer } from '../support/comfy-protocol-server.ts';
import { DATABASES } from '../support/databases.ts';
import { openSocket } from '../support/socket-client.ts';
import { startTestApp } from '../support/test-app.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';

const ADMIN = 'admin@example.com';

/** Two GPU servers (protocol servers), each behind a proxy that counts the prompts it received. */
const twoServers = async (t: { teardown(fn: () => Promise<void>): void }): Promise<{ servers: StartedComfyServer[]; proxies: TcpProxy[] }> => {
  const servers = [await startComfyProtocolServer(), await startComfyProtocolServer()];
  const proxies = await Promise.all(servers.map((s) => startTcpProxy({ host: '127.0.0.1', port: s.port })));
  t.teardown(async () => {
    await Promise.all(proxies.map((p) => p.close()));
    await Promise.all(servers.map((s) => s.close()));
  });
  return { servers, proxies };
};

for (const db of DATABASES) {
  test.serial(`[${db}] ENGINE_DRIVER=comfyui with two servers: the ready image and video templates run end to end, outputs stored, history and live progress`, async (t) => {
    const { proxies } = await twoServers(t);
    const app = await startTestApp(db, { ENGINE_DRIVER: 'comfyui', COMFYUI_URLS: proxies.map((p) => p.url).join(','), WORKER_CONCURRENCY: '2' });
    t.teardown(() => app.close());
    const alice = app.client();
    await alice.signUp();
    const socket = await openSocket(alice);
    t.teardown(() => socket.close());

    const catalogue = (await alice.get('/templates')).body as { id: string; name: string; cost: number }[];
    const image = catalogue.find((tpl) => tpl.name === 'Solid colour image')!;
    const video = catalogue.find((tpl) => tpl.name === 'Solid colour video')!;
    t.truthy(image && video, 'the ready templates are installed');

    const picture = await alice.post('/generate', { templateId: image.id, parameters: { prompt: 'a red square', width: 96, height: 64, color: 0xff0000 } });
    t.is(picture.status, 202, JSON.stringify(picture.body));
    const clip = await alice.post('/generate', { templateId: video.id, parameters: { prompt: 'blue', duration: 2 } });
    t.is(clip.status, 202, JSON.stringify(clip.body));
    const pictureDone = await socket.waitFor((m) => m.type === 'job.completed' && m.jobId === picture.body.id, 60_000);
    const clipDone = await socket.waitFor((m) => m.type === 'job.completed' && m.jobId === clip.body.id, 60_000);

    const types = socket.messages.filter((m) => m.jobId === picture.body.id).map((m) => m.type);
    t.true(types.includes('job.started'));
    t.true(types.includes('job.progress'), types.join(', '));
    t.true(types.includes('job.status'));
    t.deepEqual((pictureDone.texts as string[]) ?? [], ['a red square']);

    const [png] = pictureDone.outputs as { id: string; mimeType: string; width: number; height: number }[];
    t.like(png, { mimeType: 'image/png', width: 96, height: 64 });
    const viewed = await fetch((await alice.get(`/my-outputs/${png!.id}/view-url`)).body.viewUrl);
    const pixels = await sharp(Buffer.from(await viewed.arrayBuffer())).raw().toBuffer();
    t.deepEqual([...pixels.subarray(0, 3)], [255, 0, 0]);

    const [mp4] = clipDone.outputs as { id: string; mimeType: string }[];
    t.is(mp4!.mimeType, 'video/mp4');
    const file = Buffer.from(await (await fetch((await alice.get(`/my-outputs/${mp4!.id}/download-url`)).body.downloadUrl)).arrayBuffer());
    t.is(file.subarray(4, 8).toString('ascii'), 'ftyp');

    const history = await alice.get('/my-outputs?page=1&limit=10');
    t.is(history.body.total, 2);
    t.is((await alice.get(`/generate/${picture.body.id}`)).body.status, 'succeeded');
    t.is((await alice.get('/auth/profile')).body.coinBalance, 100 - image.cost - video.cost);
    t.is(proxies.reduce((sum, p) => sum + p.count('POST /prompt '), 0), 2, 'one prompt per job: nothing run twice');

    const health = await fetch(`${app.baseUrl}/api/v1/health`);
    const body = (await health.json()) as { checks: Record<string, string>; details: { engine: { servers: { server: number; healthy: boolean; devices: unknown[] }[] } } };
    t.is(body.checks['engine'], 'ok');
    t.deepEqual(body.details.engine.servers.map((s) => [s.server, s.healthy, Array.isArray(s.devices)]), [[1, true, true], [2, true, true]]);
    t.false(JSON.stringify(body).includes('127.0.0.1'), 'server addresses stay out of the public health answer');
  });

  test.serial(`[${db}] ENGINE_DRIVER=comfyui: a template naming a node no server knows is refused at save time with the node named; so is a raw workflow missing inputs, before any charge`, async (t) => {
    const { proxies } = await twoServers(t);
    const app = await startTestApp(db, {
      ENGINE_DRIVER: 'comfyui',
      COMFYUI_URLS: proxies.map((p) => p.url).join(','),
      ADMIN_EMAILS: ADMIN,
      RAW_WORKFLOW_COST: '3',
    });
    t.teardown(() => app.close());
    const admin = app.client();
    await admin.signUp({ email: ADMIN });
    const workflow = {
      '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0 } },
      '2': { class_type: 'KSamplerAdvancedPlus', inputs: { image: ['1', 0] } },
      '3': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'x' } },
    };
    const refused = await admin.post('/workflow-templates', { name: `T ${randomUUID()}`, category: 'text-to-image', workflow, cost: 1, outputType: 'image' });
    t.is(refused.status, 400, JSON.stringify(refused.body));
    t.like(refused.body, { statusCode: 400, error: 'Bad Request' });
    t.deepEqual(refused.body.details, [{ field: 'workflow.2.class_type', message: 'KSamplerAdvancedPlus #2: node type KSamplerAdvancedPlus does not exist (node_missing)' }]);

    const good = { ...workflow, '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } } };
    const created = await admin.post('/workflow-templates', { name: `T ${randomUUID()}`, category: 'text-to-image', workflow: good, cost: 1, outputType: 'image' });
    t.is(created.status, 201, JSON.stringify(created.body));
    const patched = await admin.patch(`/workflow-templates/${created.body.id}`, { workflow });
    t.is(patched.status, 400);
    t.is(patched.body.details[0].field, 'workflow.2.class_type');

    // A raw workflow the servers would reject (missing inputs on two nodes): refused before it is charged or queued, every problem named.
    const broken = {
      '1': { class_type: 'EmptyImage', inputs: { width: 8, batch_size: 1, color: 0 } },
      '2': { class_type: 'ImageInvert', inputs: {} },
      '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'x' } },
    };
    const submitted = await admin.post('/generate', { workflow: broken });
    t.is(submitted.status, 400, JSON.stringify(submitted.body));
    t.deepEqual(submitted.body.details, [
      { field: 'workflow.1.inputs.height', message: 'EmptyImage #1 height: is required but missing (required_input_missing)' },
      { field: 'workflow.2.inputs.image', message: 'ImageInvert #2 image: is required but missing (required_input_missing)' },
    ]);
    t.is(proxies.reduce((sum, p) => sum + p.count('POST /prompt '), 0), 0, 'nothing reached a server');
    t.is((await admin.get('/auth/profile')).body.coinBalance, 100);
  });
}

test.serial('ROLES=api with every GPU server down: healthy (the engine is checked by workers only), and templates still save (no catalogue to ask)', async (t) => {
  const gone = await startComfyProtocolServer();
  await gone.close();
  const app = await startTestApp(DATABASES[0]!, { ROLES: 'api', ENGINE_DRIVER: 'comfyui', COMFYUI_URLS: gone.url, COMFYUI_TIMEOUT_MS: '1000', ADMIN_EMAILS: ADMIN });
  t.teardown(() => app.close());
  const health = await fetch(`${app.baseUrl}/api/v1/health`);
  t.is(health.status, 200);
  const body = (await health.json()) as { checks: Record<string, string> };
  t.false('engine' in body.checks);
  const admin = app.client();
  await admin.signUp({ email: ADMIN });
  const workflow = { '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0 } }, '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'x' } } };
  const created = await admin.post('/workflow-templates', { name: `T ${randomUUID()}`, category: 'text-to-image', workflow, cost: 1, outputType: 'image' });
  t.is(created.status, 201, JSON.stringify(created.body));
});
