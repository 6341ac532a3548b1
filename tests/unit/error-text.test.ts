import test from 'ava';
import { clientErrorText } from '../../core/domain/client-error-text.ts';
import type { WorkflowEngine } from '../../core/ports/workflow-engine.port.ts';
import { BACKENDS } from '../support/backends.ts';
import { generationHarness } from '../support/generation-harness.ts';

test('client error text: server paths are cut to their last segment, URLs and plain text are kept, the length is bounded', (t) => {
  t.is(
    clientErrorText("SaveImage #3 failed: OSError: output_dir: /home/app/data/engine/output/4f2a9c/ is not writable; see '/var/log/x.log'"),
    "SaveImage #3 failed: OSError: output_dir: …/4f2a9c is not writable; see '…/x.log'",
  );
  t.is(clientErrorText('ENOENT: open C:\\srv\\data\\engine\\in\\a.png'), 'ENOENT: open …\\a.png');
  t.is(clientErrorText('fetch https://example.com/a/b/c failed, file:///etc/passwd too'), 'fetch https://example.com/a/b/c failed, <file> too');
  t.is(clientErrorText('width 8/2 is odd'), 'width 8/2 is odd');
  const long = clientErrorText('x'.repeat(10_000));
  t.is(long.length, 500);
  t.true(long.endsWith('…'));
});

const failingEngine = (message: string): WorkflowEngine => ({
  run: async () => ({ ok: false, error: { code: 'ENGINE.EXECUTION', message }, transient: false }),
  check: async () => undefined,
  close: async () => undefined,
});

const tiny = { '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0 } }, '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'x' } } };

for (const backend of BACKENDS) {
  test(`[${backend}] a job whose engine error is 200 KB long with server paths ends failed and refunded, its error bounded and scrubbed`, async (t) => {
    const message = `LoadImage #1 failed: FileNotFoundError: /srv/media/data/engine/input/job-1/in.png ${'é'.repeat(100_000)}`;
    const h = await generationHarness({ backend, engine: failingEngine(message) });
    t.teardown(() => h.dispose());
    const adminId = await h.newUser(10, 'admin');
    const submitted = await h.submit.execute({ userId: adminId, role: 'admin', workflow: tiny });
    if (!submitted.ok) return t.fail(JSON.stringify(submitted));
    t.deepEqual(await h.run.execute(h.delivery(submitted.value.job.id)), { action: 'ack' });
    const job = await h.repos.jobs.findById(submitted.value.job.id);
    t.like(job, { status: 'failed', refundedCoins: 5, error: { code: 'ENGINE.EXECUTION' } });
    t.true(job!.error!.message.startsWith('LoadImage #1 failed: FileNotFoundError: …/in.png éé'));
    t.true(job!.error!.message.length <= 500);
    t.is(await h.balance(adminId), 10);
    const failed = (await h.eventsOf(adminId)).find((event) => event.type === 'job.failed');
    t.false(JSON.stringify(failed).includes('/srv/media'));
  });

  test(`[${backend}] the job store keeps an error of any length: the message is cut to fit its column`, async (t) => {
    const h = await generationHarness({ backend });
    t.teardown(() => h.dispose());
    const adminId = await h.newUser(10, 'admin');
    const submitted = await h.submit.execute({ userId: adminId, role: 'admin', workflow: tiny });
    if (!submitted.ok) return t.fail(JSON.stringify(submitted));
    const id = submitted.value.job.id;
    const message = `"quoted" ${'€'.repeat(40_000)}`; // 120 KB in UTF-8, more once escaped as JSON
    t.true(await h.repos.jobs.transition(id, { to: 'running', runId: 'run-1' }, h.clock.now()));
    t.true(await h.repos.jobs.transition(id, { to: 'failed', fence: 'run-1', changes: { error: { code: 'ENGINE.EXECUTION', message } } }, h.clock.now()));
    const stored = (await h.repos.jobs.findById(id))!;
    t.is(stored.status, 'failed');
    t.true(message.startsWith(stored.error!.message.slice(0, 1000)), stored.error!.message.slice(0, 80));
    t.true(stored.error!.message.length > 1000);
  });

  test(`[${backend}] an output whose storage key is refused fails the job at once (no retries), refunded`, async (t) => {
    const h = await generationHarness({ backend });
    t.teardown(() => h.dispose());
    const adminId = await h.newUser(10, 'admin');
    const longName = { ...tiny, '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'n'.repeat(195) } } };
    const submitted = await h.submit.execute({ userId: adminId, role: 'admin', workflow: longName });
    if (!submitted.ok) return t.fail(JSON.stringify(submitted));
    t.deepEqual(await h.run.execute(h.delivery(submitted.value.job.id)), { action: 'ack' });
    const job = await h.repos.jobs.findById(submitted.value.job.id);
    t.like(job, { status: 'failed', attempts: 1, refundedCoins: 5, error: { code: 'STORAGE.INVALID_KEY' } });
    t.regex(job!.error!.message, /^An output could not be stored: Invalid storage key .*segments must be at most 200 bytes/);
    t.is(await h.balance(adminId), 10);
  });
}
