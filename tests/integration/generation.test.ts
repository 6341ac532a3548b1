import { randomUUID } from 'node:crypto';
import test from 'ava';
import sharp from 'sharp';
import { DATABASES } from '../support/databases.ts';
import { openSocket } from '../support/socket-client.ts';
import { startTestApp } from '../support/test-app.ts';

const png = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 10, b: 10 } } }).png().toBuffer();

for (const db of DATABASES) {
  test.serial(`[${db}] a new user generates an image and a video from the ready templates, watches progress, downloads and deletes`, async (t) => {
    const app = await startTestApp(db);
    t.teardown(() => app.close());
    const alice = app.client();
    await alice.signUp();
    const bob = app.client();
    await bob.signUp();
    const aliceSocket = await openSocket(alice);
    const bobSocket = await openSocket(bob);
    t.teardown(() => (aliceSocket.close(), bobSocket.close()));

    const catalogue = await alice.get('/templates');
    t.is(catalogue.status, 200);
    const image = catalogue.body.find((tpl: { name: string }) => tpl.name === 'Solid colour image');
    const video = catalogue.body.find((tpl: { name: string }) => tpl.name === 'Solid colour video');
    t.truthy(image && video, 'the ready templates are installed');

    const submitted = await alice.post('/generate', { templateId: image.id, parameters: { prompt: 'a red square', width: 96, height: 64, color: 0xff0000 } });
    t.is(submitted.status, 202, JSON.stringify(submitted.body));
    t.is(submitted.body.status, 'queued');
    const jobId = submitted.body.id;
    const completed = await aliceSocket.waitFor((m) => m.type === 'job.completed' && m.jobId === jobId);
    const types = aliceSocket.messages.filter((m) => m.jobId === jobId).map((m) => m.type);
    t.true(types.includes('job.started'));
    t.true(types.includes('job.progress'));
    t.true(types.indexOf('job.started') < types.indexOf('job.completed'));
    const seqs = aliceSocket.messages.map((m) => m.seq!);
    t.deepEqual(seqs, [...seqs].sort((a, b) => a - b), 'seq grows');
    t.is((completed.outputs as unknown[]).length, 1);

    const job = await alice.get(`/generate/${jobId}`);
    t.is(job.body.status, 'succeeded');
    t.deepEqual(job.body.textOutputs.map((o: { text: string }) => o.text), ['a red square']);
    t.is((await alice.get('/auth/profile')).body.coinBalance, 100 - image.cost);

    const history = await alice.get('/my-outputs?page=1&limit=10');
    t.is(history.status, 200);
    t.is(history.body.total, 1);
    const output = history.body.items[0];
    t.is(output.mimeType, 'image/png');
    t.is(output.width, 96);
    t.is(output.height, 64);
    t.truthy(output.expiresAt);
    const viewed = await fetch((await alice.get(`/my-outputs/${output.id}/view-url`)).body.viewUrl);
    t.is(viewed.status, 200);
    const pixels = await sharp(Buffer.from(await viewed.arrayBuffer())).raw().toBuffer();
    t.deepEqual([...pixels.subarray(0, 3)], [255, 0, 0]);
    const download = await fetch((await alice.get(`/my-outputs/${output.id}/download-url`)).body.downloadUrl);
    t.is(download.status, 200);
    t.regex(download.headers.get('content-disposition') ?? '', /^attachment/);

    // Bob sees nothing of Alice's.
    t.is((await bob.get(`/my-outputs/${output.id}/view-url`)).status, 404);
    t.is((await bob.get(`/generate/${jobId}`)).status, 404);
    t.is((await bob.delete(`/my-outputs/${output.id}`)).status, 404);

    const clip = await alice.post('/generate', { templateId: video.id, parameters: { prompt: 'blue', duration: 2 } });
    t.is(clip.status, 202, JSON.stringify(clip.body));
    const clipDone = await aliceSocket.waitFor((m) => m.type === 'job.completed' && m.jobId === clip.body.id, 60_000);
    const mp4 = (clipDone.outputs as { mimeType: string; durationSeconds: number; id: string }[])[0]!;
    t.is(mp4.mimeType, 'video/mp4');
    t.is(mp4.durationSeconds, 2);
    const file = Buffer.from(await (await fetch((await alice.get(`/my-outputs/${mp4.id}/download-url`)).body.downloadUrl)).arrayBuffer());
    t.is(file.subarray(4, 8).toString('ascii'), 'ftyp');

    t.is((await alice.delete(`/my-outputs/${output.id}`)).status, 204);
    t.is((await alice.get(`/my-outputs/${output.id}/view-url`)).status, 404);
    t.is((await alice.get('/my-outputs')).body.total, 1);

    await new Promise((resolve) => setTimeout(resolve, 300));
    t.deepEqual(bobSocket.messages.filter((m) => m.jobId), [], "Bob's socket got none of Alice's events");
  });

  test.serial(`[${db}] a failing workflow paid by a linked deduction ends failed and the coins come back once`, async (t) => {
    // A raw workflow that matches no template: an administrator's, at RAW_WORKFLOW_COST.
    const app = await startTestApp(db, { ADMIN_EMAILS: 'admin@example.com', RAW_WORKFLOW_COST: '2' });
    t.teardown(() => app.close());
    const user = app.client();
    await user.signUp({ email: 'admin@example.com' });
    const socket = await openSocket(user);
    t.teardown(() => socket.close());
    const requestId = randomUUID();
    const deducted = await user.post('/coin/deduct', { amount: 2, reason: 'image_generation', relatedEntityId: requestId });
    t.is(deducted.status, 200);
    t.is(deducted.body.coinBalance, 98);
    const workflow = {
      '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0 } },
      '2': { class_type: 'SolidMask', inputs: { value: 1, width: 8, height: 8 } },
      '3': { class_type: 'JoinImageWithAlpha', inputs: { image: ['1', 0], alpha: ['2', 0] } },
      '4': { class_type: 'ImageBatch', inputs: { image1: ['1', 0], image2: ['3', 0] } },
      '5': { class_type: 'SaveImage', inputs: { images: ['4', 0], filename_prefix: 'fail' } },
    };
    const submitted = await user.post('/generate', { workflow, requestId });
    t.is(submitted.status, 202);
    t.is(submitted.body.id, requestId);
    const failed = await socket.waitFor((m) => m.type === 'job.failed' && m.jobId === requestId);
    t.is((failed.error as { code: string }).code, 'ENGINE.EXECUTION');
    t.is(failed.refunded, 2);
    t.is((await user.get('/auth/profile')).body.coinBalance, 100);
    const again = await user.post('/generate', { workflow, requestId });
    t.is(again.status, 200, 'the same requestId returns the existing job');
    t.is(again.body.status, 'failed');
    const ledger = await user.get('/coin/transactions');
    t.is(ledger.body.items.filter((tx: { reason: string }) => tx.reason === 'generation_refund').length, 1);
  });

  test.serial(`[${db}] an uploaded image feeds the resize template; sync replays missed events`, async (t) => {
    const app = await startTestApp(db);
    t.teardown(() => app.close());
    const user = app.client();
    await user.signUp();
    const form = new FormData();
    form.append('file', new Blob([await png(20, 10)], { type: 'image/png' }), 'in.png');
    const upload = await user.post('/uploads', form);
    t.is(upload.status, 201, JSON.stringify(upload.body));
    const resize = (await user.get('/templates')).body.find((tpl: { name: string }) => tpl.name === 'Resize image');
    const submitted = await user.post('/generate', { templateId: resize.id, parameters: { image: upload.body.id, scale_by: 2 } });
    t.is(submitted.status, 202, JSON.stringify(submitted.body));
    const socket = await openSocket(user);
    t.teardown(() => socket.close());
    socket.send({ type: 'sync', since: 0 });
    const done = await socket.waitFor((m) => m.type === 'job.completed' && m.jobId === submitted.body.id);
    const out = (done.outputs as { width: number; height: number }[])[0]!;
    t.is(out.width, 40);
    t.is(out.height, 20);
    t.truthy(socket.messages.find((m) => m.type === 'job.queued' && m.jobId === submitted.body.id), 'replayed from before the socket opened');
    const someoneElse = app.client();
    await someoneElse.signUp();
    const stolen = await someoneElse.post('/generate', { templateId: resize.id, parameters: { image: upload.body.id } });
    t.is(stolen.status, 400, "another user's upload id is refused");
  });
}
