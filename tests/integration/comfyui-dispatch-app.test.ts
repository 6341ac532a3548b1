/**
 * ADR 044 through the real application (ENGINE_DRIVER=comfyui, one slow stand-in, the default look-ahead of one job
 * per server): a job the worker took beyond its slot waits for the slot still `queued`, with a position, and a cancel
 * then ends it without it ever reaching the server.
 */
import test from 'ava';
import { startComfyProtocolServer } from '../support/comfy-protocol-server.ts';
import { DATABASES } from '../support/databases.ts';
import { startTestApp } from '../support/test-app.ts';
import { startTcpProxy } from '../support/tcp-proxy.ts';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

for (const db of DATABASES) {
  test.serial(`[${db}] a job taken beyond the slots waits for one still queued, with its position; cancelled there, it never reaches the server`, async (t) => {
    const server = await startComfyProtocolServer({ costs: { nodeMs: 1_500 } });
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: server.port });
    t.teardown(async () => {
      await proxy.close();
      await server.close();
    });
    const app = await startTestApp(db, { ENGINE_DRIVER: 'comfyui', COMFYUI_URLS: proxy.url });
    t.teardown(() => app.close());
    const alice = app.client();
    await alice.signUp();
    const image = ((await alice.get('/templates')).body as { id: string; name: string }[]).find((tpl) => tpl.name === 'Solid colour image')!;
    const submit = async (): Promise<string> => {
      const submitted = await alice.post('/generate', { templateId: image.id, parameters: { prompt: 'p', width: 64, height: 64, color: Math.floor(Math.random() * 0xffffff) } });
      t.is(submitted.status, 202, JSON.stringify(submitted.body));
      return submitted.body.id as string;
    };
    const statusOf = async (id: string) => (await alice.get(`/generate/${id}`)).body as { status: string; position?: number | null };

    const first = await submit();
    for (let i = 0; i < 100 && (await statusOf(first)).status !== 'running'; i += 1) await sleep(100);
    t.is((await statusOf(first)).status, 'running');
    const second = await submit();
    // WORKER_CONCURRENCY is 2 (one slot + one look-ahead): the worker takes the second job at once; it waits for the slot.
    await sleep(1_500);
    t.like(await statusOf(second), { status: 'queued', position: 0 });
    t.is((await statusOf(first)).status, 'running', 'the first job still holds the only slot');
    t.is((await alice.post(`/generate/${second}/cancel`)).status, 200);
    for (let i = 0; i < 200 && (await statusOf(first)).status === 'running'; i += 1) await sleep(100);
    t.is((await statusOf(first)).status, 'succeeded');
    t.is((await statusOf(second)).status, 'cancelled');
    await sleep(500);
    t.is(proxy.count('POST /prompt '), 1, 'the cancelled job never reached the server');
  });
}
