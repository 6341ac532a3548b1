import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import test from 'ava';
import sharp from 'sharp';
import type { WorkflowGraph } from '../../core/domain/workflow-graph.types.ts';
import type { EngineEvent, EngineRunRequest } from '../../core/ports/workflow-engine.port.ts';
import { ComfyEngine } from '../../adapters/comfyui/comfy-engine.ts';
import { FfprobeMediaInspector } from '../../adapters/media-probe/ffprobe-media-inspector.ts';
import { fileBytes, imageAndText, longBlur } from '../contract/workflow-engine.contract.ts';
import { connectComfyWs, proxyFor, standInFor, startComfyProtocolServer, type StartedComfyServer } from '../support/comfy-protocol-server.ts';
import { openSocket } from '../support/socket-client.ts';
import { startTestApp } from '../support/test-app.ts';

const ADMIN = 'admin@example.com';

type Teardown = { teardown(fn: () => Promise<void>): void };

const server = standInFor;
const proxied = proxyFor;

const engineFor = (t: Teardown, urls: string[]): ComfyEngine => {
  const engine = new ComfyEngine({ urls, timeoutMs: 10_000, jobsPerServer: 1, unavailableWaitMs: 8000, pollMs: 50, baseBackoffMs: 100, maxBackoffMs: 400 });
  t.teardown(() => engine.close());
  return engine;
};

const runRequest = (workflow: WorkflowGraph, extra: Partial<EngineRunRequest> = {}): EngineRunRequest => {
  const events: EngineEvent[] = [];
  return { runId: randomUUID(), workflow, inputs: [], onEvent: (e) => events.push(e), ...extra };
};

/** Every file under a folder, as paths relative to it. */
const filesUnder = async (dir: string): Promise<string[]> => {
  if (!existsSync(dir)) return [];
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(dir.length + 1)).sort();
};

const postJson = (url: string, body?: unknown): Promise<Response> =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

/** The app on one stand-in server (behind a counting proxy), an administrator who may submit raw workflows at `cost`, their socket. */
const adminOnComfy = async (t: Teardown, cost: number) => {
  const target = await server(t);
  const proxy = await proxied(t, target);
  const app = await startTestApp('mariadb', { ENGINE_DRIVER: 'comfyui', COMFYUI_URLS: proxy.url, ADMIN_EMAILS: ADMIN, RAW_WORKFLOW_COST: String(cost) });
  t.teardown(() => app.close());
  const admin = app.client();
  await admin.signUp({ email: ADMIN });
  const socket = await openSocket(admin);
  t.teardown(async () => socket.close());
  return { target, proxy, admin, socket };
};

/** Resolves once the server has nothing running or pending. */
const serverIdle = async (target: StartedComfyServer): Promise<void> => {
  for (let i = 0; i < 600; i++) {
    const queue = (await (await fetch(`${target.url}/queue`)).json()) as { queue_running: unknown[]; queue_pending: unknown[] };
    if (queue.queue_running.length === 0 && queue.queue_pending.length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the server is still busy after 60 s');
};

const solid = (color: number): WorkflowGraph => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 16, height: 8, batch_size: 1, color } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'same' } },
});

test.serial('the stand-in has ComfyUI\'s execution cache: an identical prompt runs nothing and lists the earlier files, even once they are deleted; /free with free_memory empties it', async (t) => {
  const target = await server(t);
  const ws = await connectComfyWs(target.wsUrl, 'cache-probe');
  t.teardown(() => ws.close());
  const submit = async (promptId: string): Promise<void> => {
    const res = await postJson(`${target.url}/prompt`, { prompt: solid(0x112233), client_id: 'cache-probe', prompt_id: promptId });
    t.is(res.status, 200);
    await ws.waitFor((m) => m.type === 'executing' && m.data['node'] === null && m.data['prompt_id'] === promptId);
  };
  const outputsOf = async (promptId: string): Promise<unknown> => ((await (await fetch(`${target.url}/history/${promptId}`)).json()) as Record<string, { outputs: unknown }>)[promptId]!.outputs;

  await submit('first');
  const files = await filesUnder(target.outputDir);
  t.deepEqual(files, ['same_00001_.png']);
  await rm(join(target.outputDir, files[0]!));
  await submit('second');
  const cached = ws.messages.find((m) => m.type === 'execution_cached' && m.data['prompt_id'] === 'second')!;
  t.deepEqual(cached.data['nodes'], ['1', '2'], 'every node answered from the cache');
  t.false(ws.messages.some((m) => m.type === 'executing' && m.data['prompt_id'] === 'second' && m.data['node'] !== null), 'no node ran');
  t.deepEqual(await outputsOf('second'), await outputsOf('first'), 'the same (deleted) file is listed again');
  t.deepEqual(await filesUnder(target.outputDir), [], 'nothing new written');
  t.is((await fetch(`${target.url}/view?filename=same_00001_.png&type=output`)).status, 404);

  t.is((await postJson(`${target.url}/free`, { free_memory: true })).status, 200);
  await submit('third');
  t.deepEqual(await filesUnder(target.outputDir), ['same_00001_.png'], 'after /free the prompt runs again');
});

test.serial('each run saves into its own folder (output/mgs/<run id>/) and uploads its inputs into input/mgs/<run id>/', async (t) => {
  const target = await server(t);
  const engine = engineFor(t, [target.url]);
  const png = await sharp({ create: { width: 6, height: 4, channels: 3, background: '#00ff00' } }).png().toBuffer();
  const workflow: WorkflowGraph = {
    '1': { class_type: 'LoadImage', inputs: { image: 'my picture.png' } },
    '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'loaded' } },
  };
  const request = runRequest(workflow, { inputs: [{ name: 'my picture.png', mimeType: 'image/png', data: png }] });
  const result = await engine.run(request);
  if (!result.ok) return t.fail(JSON.stringify(result.error));
  t.deepEqual(await filesUnder(target.inputDir), [`mgs/${request.runId}/my_picture.png`]);
  t.deepEqual(await filesUnder(target.outputDir), [`mgs/${request.runId}/loaded_00001_.png`]);
  t.is(result.files[0]!.fileName, 'loaded_00001_.png', 'the user sees the file name, not the folder');
  t.deepEqual((await sharp(await fileBytes(result.files[0]!)).metadata()).width, 6);
});

test.serial('a finished prompt whose files were removed: reading one fails naming the server by position (no address); a redelivered attempt runs the job anew instead of adopting it', async (t) => {
  const target = await server(t);
  const proxy = await proxied(t, target);
  const engine = engineFor(t, [proxy.url]);
  const first = runRequest(imageAndText(0x0000ff));
  const done = await engine.run(first);
  if (!done.ok) return t.fail(JSON.stringify(done.error));
  await rm(join(target.outputDir, 'mgs'), { recursive: true });

  const error = await t.throwsAsync(fileBytes(done.files[0]!));
  t.regex(error!.message, /ComfyUI server 1: GET \/view of .* answered 404/);
  t.false(error!.message.includes('127.0.0.1') || error!.message.includes(new URL(proxy.url).port), error!.message);

  const again = await engine.run(runRequest(imageAndText(0x0000ff), { supersedes: first.runId }));
  if (!again.ok) return t.fail(JSON.stringify(again.error));
  const [pixel] = [...(await sharp(await fileBytes(again.files[0]!)).raw().toBuffer()).subarray(0, 3)];
  t.is(pixel, 0);
  t.is(proxy.count('POST /prompt '), 2, 'the job ran again rather than adopting outputs that are gone');
});

test.serial('two servers: the run names the server it was handed to (an event as it starts), by place in the URL list', async (t) => {
  const servers = [await server(t), await server(t)];
  const engine = engineFor(t, servers.map((s) => s.url));
  for (let i = 0; i < 4; i++) {
    const events: EngineEvent[] = [];
    const request = runRequest(solid(0x000010 * (i + 1)), { onEvent: (event) => events.push(event) });
    const result = await engine.run(request);
    if (!result.ok) return t.fail(JSON.stringify(result));
    // Where the prompt really ran: the server whose history holds it.
    const ranOn = [];
    for (const [index, one] of servers.entries()) {
      const history = (await (await fetch(`${one.url}/history/${request.runId}`)).json()) as Record<string, unknown>;
      if (history[request.runId]) ranOn.push(index + 1);
    }
    t.is(ranOn.length, 1);
    t.deepEqual(events.filter((event) => event.type === 'server'), [{ type: 'server', server: ranOn[0] }]);
  }
});

test.serial('an unreachable server: the engine error names it by position, never by address', async (t) => {
  const gone = await startComfyProtocolServer();
  await gone.close();
  const engine = new ComfyEngine({ urls: [`http://user:secret@127.0.0.1:${gone.port}`], timeoutMs: 1000, jobsPerServer: 1, unavailableWaitMs: 300, pollMs: 50, baseBackoffMs: 100, maxBackoffMs: 200 });
  t.teardown(() => engine.close());
  const result = await engine.run(runRequest(imageAndText(0)));
  if (result.ok) return t.fail('ran without a server');
  t.is(result.error.code, 'ENGINE.UNAVAILABLE');
  t.false(/127\.0\.0\.1|secret|:\d{4,5}\b/.test(result.error.message), result.error.message);
});

test.serial('ENGINE_DRIVER=comfyui: the same parameters again after the server lost the first output: the second job runs and stores a real file (not a 404 three times with the address in the error)', async (t) => {
  const target = await server(t);
  const proxy = await proxied(t, target);
  const app = await startTestApp('mariadb', { ENGINE_DRIVER: 'comfyui', COMFYUI_URLS: proxy.url, MAX_ATTEMPTS: '2' });
  t.teardown(() => app.close());
  const alice = app.client();
  await alice.signUp();
  const socket = await openSocket(alice);
  t.teardown(() => socket.close());
  const image = ((await alice.get('/templates')).body as { id: string; name: string }[]).find((tpl) => tpl.name === 'Solid colour image')!;
  const parameters = { prompt: 'same again', width: 72, height: 64, color: 0x00ff00 };

  const one = await alice.post('/generate', { templateId: image.id, parameters });
  t.is(one.status, 202, JSON.stringify(one.body));
  await socket.waitFor((m) => m.type === 'job.completed' && m.jobId === one.body.id, 60_000);
  await rm(join(target.outputDir, 'mgs'), { recursive: true });

  const two = await alice.post('/generate', { templateId: image.id, parameters });
  const ended = await socket.waitFor((m) => (m.type === 'job.completed' || m.type === 'job.failed') && m.jobId === two.body.id, 60_000);
  t.is(ended.type, 'job.completed', JSON.stringify(ended));
  const [png] = ended.outputs as { id: string; width: number }[];
  t.is(png!.width, 72);
  const viewed = await fetch((await alice.get(`/my-outputs/${png!.id}/view-url`)).body.viewUrl);
  t.deepEqual([...(await sharp(Buffer.from(await viewed.arrayBuffer())).raw().toBuffer()).subarray(0, 3)], [0, 255, 0]);
  t.false(JSON.stringify(socket.messages).includes('127.0.0.1'), 'no server address in any event');
});

test.serial('ENGINE_DRIVER=comfyui: a prompt ComfyUI accepts with an invalid output branch is refused: nothing runs, the job fails with ENGINE.VALIDATION naming the node, refunded', async (t) => {
  const { target, proxy, admin, socket } = await adminOnComfy(t, 3);
  // The valid branch takes a few seconds (a blur), so the interrupt lands before it saves, as on a GPU.
  const workflow = {
    '1': { class_type: 'EmptyImage', inputs: { width: 512, height: 512, batch_size: 8, color: 0 } },
    '5': { class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: 31, sigma: 10 } },
    '2': { class_type: 'SaveImage', inputs: { images: ['5', 0], filename_prefix: 'good' } },
    // An input our /object_info check cannot judge (an upload combo: the file is only known to the server), as a
    // custom node's VALIDATE_INPUTS would be: the server alone refuses this branch.
    '3': { class_type: 'LoadImage', inputs: { image: 'not-on-this-server.png' } },
    '4': { class_type: 'SaveImage', inputs: { images: ['3', 0], filename_prefix: 'bad' } },
  };
  // What the server answers for it: 200, the valid branch queued, the invalid one in node_errors.
  const direct = await postJson(`${target.url}/prompt`, { prompt: workflow, prompt_id: 'direct' });
  const answer = (await direct.json()) as { node_errors: Record<string, unknown> };
  t.is(direct.status, 200);
  t.deepEqual(Object.keys(answer.node_errors), ['3']);
  await postJson(`${target.url}/queue`, { delete: ['direct'] });
  await postJson(`${target.url}/interrupt`, { prompt_id: 'direct' });

  const submitted = await admin.post('/generate', { workflow });
  t.is(submitted.status, 202, JSON.stringify(submitted.body));
  const failed = await socket.waitFor((m) => m.type === 'job.failed' && m.jobId === submitted.body.id, 30_000);
  const error = failed.error as { code: string; message: string; nodeId?: string };
  t.is(error.code, 'ENGINE.VALIDATION');
  t.is(error.nodeId, '3');
  t.regex(error.message, /LoadImage #3: .*Invalid image file: not-on-this-server\.png/);
  t.is(failed.refunded, 3);
  const job = (await admin.get(`/generate/${submitted.body.id}`)).body as { status: string; error: { code: string; nodeId?: string } };
  t.like(job, { status: 'failed', error: { code: 'ENGINE.VALIDATION', nodeId: '3' } });
  t.is((await admin.get('/auth/profile')).body.coinBalance, 100);
  // Once the server is idle, the job's prompt was either removed while pending or ended interrupted: never a success.
  await serverIdle(target);
  const history = Object.values((await (await fetch(`${target.url}/history`)).json()) as Record<string, { prompt: unknown[]; status: { status_str: string } }>);
  const ofJob = history.filter((entry) => (entry.prompt[3] as { mgs_job?: string }).mgs_job === submitted.body.id);
  t.false(ofJob.some((entry) => entry.status.status_str === 'success'), JSON.stringify(ofJob.map((entry) => entry.status)));
  // The job's prompt would save under output/mgs/<run id>/ (the direct one above saved at the root).
  t.deepEqual(await filesUnder(join(target.outputDir, 'mgs')), [], 'the valid branch never saved');
  t.is(proxy.count('POST /prompt '), 1, 'not retried');
});

test.serial('ENGINE_DRIVER=comfyui: Interrupt pressed on the server itself (POST /interrupt, not ours) ends the job cancelled and refunded, not retried', async (t) => {
  const { target, proxy, admin, socket } = await adminOnComfy(t, 4);
  const submitted = await admin.post('/generate', { workflow: longBlur() });
  t.is(submitted.status, 202, JSON.stringify(submitted.body));
  await socket.waitFor((m) => m.type === 'job.progress' && m.jobId === submitted.body.id, 30_000);
  const running = ((await admin.get('/admin/jobs?status=running')).body.items as { id: string; engineServer: number | null }[]).find((job) => job.id === submitted.body.id);
  t.is(running?.engineServer, 1, 'a running job shows the server it was handed to');
  t.is((await postJson(`${target.url}/interrupt`)).status, 200);
  const ended = await socket.waitFor((m) => (m.type === 'job.cancelled' || m.type === 'job.failed' || m.type === 'job.completed') && m.jobId === submitted.body.id, 60_000);
  t.is(ended.type, 'job.cancelled', JSON.stringify(ended));
  t.is(ended.refunded, 4);
  t.is((await admin.get(`/generate/${submitted.body.id}`)).body.status, 'cancelled');
  t.is((await admin.get('/auth/profile')).body.coinBalance, 100);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  t.is(proxy.count('POST /prompt '), 1, 'not run again');
});

test.serial('media facts ComfyUI does not report (video and audio duration and size, an animated WebP\'s duration) are read from the files by ffprobe and sharp', async (t) => {
  const target = await server(t);
  const engine = engineFor(t, [target.url]);
  const workflow: WorkflowGraph = {
    // Twelve frames alternating red and blue (identical frames would be merged into a still picture).
    '8': { class_type: 'EmptyImage', inputs: { width: 32, height: 24, batch_size: 1, color: 0xff0000 } },
    '9': { class_type: 'EmptyImage', inputs: { width: 32, height: 24, batch_size: 1, color: 0x0000ff } },
    '10': { class_type: 'ImageBatch', inputs: { image1: ['8', 0], image2: ['9', 0] } },
    '1': { class_type: 'RepeatImageBatch', inputs: { image: ['10', 0], amount: 6 } },
    '2': { class_type: 'SaveAnimatedWEBP', inputs: { images: ['1', 0], filename_prefix: 'anim', fps: 6, lossless: false, quality: 80, method: 'default' } },
    '3': { class_type: 'SaveWEBM', inputs: { images: ['1', 0], filename_prefix: 'clip', codec: 'vp9', fps: 8, crf: 32 } },
    '4': { class_type: 'CreateVideo', inputs: { images: ['1', 0], fps: 4 } },
    '5': { class_type: 'SaveVideo', inputs: { video: ['4', 0], filename_prefix: 'video/clip', format: 'mp4', codec: 'h264' } },
    '6': { class_type: 'EmptyAudio', inputs: { duration: 1.5, sample_rate: 44100, channels: 2 } },
    '7': { class_type: 'SaveAudio', inputs: { audio: ['6', 0], filename_prefix: 'audio/sound' } },
  };
  const result = await engine.run(runRequest(workflow));
  if (!result.ok) return t.fail(JSON.stringify(result.error));
  const byNode = new Map(result.files.map((file) => [file.nodeId, file]));
  t.deepEqual(
    result.files.map((f) => [f.nodeId, f.mimeType, f.durationSeconds]).sort(),
    [['2', 'image/webp', undefined], ['3', 'video/webm', undefined], ['5', 'video/mp4', undefined], ['7', 'audio/flac', undefined]],
    'ComfyUI itself reports no durations',
  );
  const inspector = new FfprobeMediaInspector();
  const facts = async (node: string) => {
    const file = byNode.get(node)!;
    return inspector.inspect(() => file.open(), file.mimeType);
  };
  // ffprobe skips an animated WebP's ANIM/ANMF chunks (0×0, no duration); sharp reads 12 frames of 166 ms.
  t.deepEqual(await facts('2'), { width: 32, height: 24, durationSeconds: 1.992 }, '12 frames at 6 fps');
  t.deepEqual(await facts('3'), { width: 32, height: 24, durationSeconds: 1.5 }, '12 frames at 8 fps');
  t.deepEqual(await facts('5'), { width: 32, height: 24, durationSeconds: 3 }, '12 frames at 4 fps');
  const audio = await facts('7');
  t.is(audio.width, undefined);
  t.true(Math.abs(audio.durationSeconds! - 1.5) < 0.05, JSON.stringify(audio));
  t.deepEqual(await inspector.inspect(async () => Readable.from([Buffer.from('not a video')]), 'video/mp4'), {}, 'a file that is not media tells nothing');
});
