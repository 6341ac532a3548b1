import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import test from 'ava';
import sharp from 'sharp';
import { DATABASES } from '../support/databases.ts';
import { startS3StandIn } from '../support/s3-stand-in.ts';
import { openSocket } from '../support/socket-client.ts';
import { startTestApp } from '../support/test-app.ts';

for (const db of DATABASES) {
  test.serial(`[${db}] STORAGE_DRIVER=s3: uploads and outputs live in the bucket, served by presigned URLs, deleted with their records`, async (t) => {
    const s3 = await startS3StandIn();
    t.teardown(() => s3.stop());
    const app = await startTestApp(db, s3.env);
    t.teardown(() => app.close());
    const bucket = new S3Client({ region: 'us-east-1', endpoint: s3.endpoint, forcePathStyle: true, credentials: s3.credentials });
    t.teardown(() => bucket.destroy());
    const keys = async () => ((await bucket.send(new ListObjectsV2Command({ Bucket: s3.bucket }))).Contents ?? []).map((object) => object.Key!).sort();

    const health = await app.client().get('/health');
    t.like(health.body, { status: 'ok', checks: { storage: 'ok' } });

    const alice = app.client();
    const user = await alice.signUp();
    const socket = await openSocket(alice);
    t.teardown(() => socket.close());
    const photo = await sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 0, g: 0, b: 255 } } }).png().toBuffer();
    const form = new FormData();
    form.append('file', new Blob([photo], { type: 'image/png' }), 'photo.png');
    const uploaded = await alice.post('/uploads', form);
    t.is(uploaded.status, 201, JSON.stringify(uploaded.body));
    t.deepEqual(await keys(), [`uploads/${user.id}/${uploaded.body.id}.png`]);

    const resize = (await alice.get('/templates')).body.find((template: { name: string }) => template.name === 'Resize image');
    const submitted = await alice.post('/generate', { templateId: resize.id, parameters: { image: uploaded.body.id, scale_by: 2 } });
    t.is(submitted.status, 202, JSON.stringify(submitted.body));
    const completed = await socket.waitFor((m) => (m.type === 'job.completed' || m.type === 'job.failed') && m.jobId === submitted.body.id);
    t.is(completed.type, 'job.completed', JSON.stringify(completed));
    const [output] = completed.outputs as { id: string; viewUrl: string; fileName: string }[];
    const outputKey = (await keys()).find((key) => key.startsWith(`outputs/${user.id}/${submitted.body.id}/`));
    t.truthy(outputKey, 'the output is stored under outputs/<user>/<job>/');

    // The view URL is a presigned URL of the store, not of the service.
    t.true(output!.viewUrl.startsWith(`${s3.endpoint}/${s3.bucket}/`), output!.viewUrl);
    const viewed = await fetch(output!.viewUrl);
    t.is(viewed.status, 200);
    t.is(viewed.headers.get('content-type'), 'image/png');
    t.regex(viewed.headers.get('content-disposition') ?? '', /^inline; filename="/);
    t.like((await sharp(Buffer.from(await viewed.arrayBuffer())).metadata()), { width: 80, height: 60 });
    const download = await fetch((await alice.get(`/my-outputs/${output!.id}/download-url`)).body.downloadUrl);
    t.is(download.status, 200);
    t.regex(download.headers.get('content-disposition') ?? '', new RegExp(`^attachment; filename="${output!.fileName.replace('.', '\\.')}"`));
    await download.arrayBuffer();
    // No files route is served when the store serves its own URLs.
    t.is((await alice.get('/files/anything')).status, 404);

    t.is((await alice.delete(`/my-outputs/${output!.id}`)).status, 204);
    t.false((await keys()).includes(outputKey!), 'deleting the output deletes its object');
  });
}
