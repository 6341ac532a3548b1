import { randomUUID } from 'node:crypto';
import test, { type ExecutionContext } from 'ava';
import type { Logger } from '../../core/ports/logger.port.ts';
import { NO_JOB_METRICS, type JobMetrics } from '../../core/ports/metrics.port.ts';
import type { WebhookDelivery } from '../../core/ports/webhook-delivery-repository.port.ts';
import type { WebhookRequest, WebhookResponse } from '../../core/ports/webhook-sender.port.ts';
import { DeliverWebhooks } from '../../core/use-cases/webhooks/deliver-webhooks.use-case.ts';
import { BACKENDS, openBackend, type Backend, type BackendName } from '../support/backends.ts';
import { DATABASES } from '../support/databases.ts';
import { quietLogger } from '../support/generation-harness.ts';
import { addUser, at, freshBackend, HOUR, newJob, SECOND, within } from '../contract/fixtures.ts';

/**
 * The delivery side of webhooks (ADR 036) on each backend: which deliveries a worker claims, what one attempt
 * leaves on its row, and whose deliveries a job's log holds. The HTTP transport is tests/integration/webhook-sender.test.ts.
 */

/** A job of a fresh user, for deliveries to belong to. */
async function job(backend: Backend): Promise<{ userId: string; jobId: string }> {
  const userId = await addUser(backend.repos.users);
  const created = newJob(userId);
  if (!(await backend.repos.jobs.create(created))) throw new Error('job not created');
  return { userId, jobId: created.id };
}

/** A pending delivery of the job, due at `due`. */
async function pending(backend: Backend, owner: { userId: string; jobId: string }, due: Date, over: Partial<WebhookDelivery> = {}): Promise<WebhookDelivery> {
  const delivery: WebhookDelivery = {
    id: randomUUID(),
    jobId: owner.jobId,
    userId: owner.userId,
    url: `https://hooks.example.com/${owner.jobId}`,
    event: 'completed',
    payload: JSON.stringify({ type: 'job.completed', data: { jobId: owner.jobId } }),
    status: 'pending',
    attempts: 0,
    firstAttemptAt: null,
    nextAttemptAt: due,
    lastStatusCode: null,
    lastError: null,
    createdAt: at(0),
    updatedAt: at(0),
    ...over,
  };
  await backend.repos.webhooks.add(delivery);
  return delivery;
}

/** A sender that answers `answer` and records each request; `holdNext` keeps the next send open until released. */
function fakeSender(answer: (request: WebhookRequest) => WebhookResponse) {
  const sent: WebhookRequest[] = [];
  let hold: Promise<void> | null = null;
  return {
    sent,
    holdNext() {
      let release!: () => void;
      hold = new Promise<void>((done) => (release = done));
      return release;
    },
    async send(request: WebhookRequest): Promise<WebhookResponse> {
      sent.push(request);
      const held = hold;
      hold = null;
      if (held) await held;
      return answer(request);
    },
  };
}

const FAILING = (): WebhookResponse => ({ delivered: false, statusCode: 500, error: 'HTTP 500' });
const DELIVERING = (): WebhookResponse => ({ delivered: true, statusCode: 204 });

type Secrets = (userId: string) => Promise<string[]>;

function worker(
  backend: Backend,
  sender: { send(request: WebhookRequest): Promise<WebhookResponse> },
  clock: { now(): Date },
  over: { claimer?: string; concurrency?: number; signingSecrets?: Secrets; logger?: Logger; metrics?: JobMetrics } = {},
) {
  return new DeliverWebhooks({
    deliveries: backend.repos.webhooks,
    sender,
    signingSecrets: over.signingSecrets ?? (async () => ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw']),
    clock,
    logger: over.logger ?? quietLogger,
    random: () => 0.5,
    budget: { maxAttempts: 8, windowSeconds: 3600 },
    concurrency: over.concurrency ?? 10,
    timeoutMs: 10_000,
    claimer: over.claimer ?? 'worker-1',
    metrics: over.metrics ?? NO_JOB_METRICS,
  });
}

const fresh = (t: ExecutionContext, kind: BackendName) => freshBackend(t, () => openBackend(kind));

for (const kind of BACKENDS) {
  test(`${kind}: a worker claims only due pending deliveries, oldest first, at most its limit, and never one another worker holds`, async (t) => {
    const backend = await fresh(t, kind);
    const owner = await job(backend);
    const first = await pending(backend, owner, at(0));
    const second = await pending(backend, owner, at(SECOND));
    const later = await pending(backend, owner, at(HOUR));
    const webhooks = backend.repos.webhooks;
    // The limit, oldest first.
    t.deepEqual((await webhooks.claimDue(at(10 * SECOND), 'a', at(60 * SECOND), 1)).map((delivery) => delivery.id), [first.id]);
    // Two workers at once: the one due delivery left goes to one of them; the held one and the one not yet due to neither.
    const rivals = await Promise.all(['b', 'c'].map((claimer) => webhooks.claimDue(at(10 * SECOND), claimer, at(60 * SECOND), 10)));
    t.deepEqual(rivals.flat().map((delivery) => delivery.id), [second.id]);
    t.deepEqual(await webhooks.claimDue(at(59 * SECOND), 'd', at(120 * SECOND), 10), [], 'every due delivery is held, the later one not due');
    // Once the claims have run out they are taken again; the later one once it is due.
    t.deepEqual((await webhooks.claimDue(at(HOUR), 'e', at(HOUR + 60 * SECOND), 10)).map((delivery) => delivery.id).sort(), [first.id, second.id, later.id].sort());
    // The worker whose claim ran out records nothing any more; the one holding the claim does.
    const attempt = { status: 'failed' as const, attempts: 1, firstAttemptAt: at(HOUR), nextAttemptAt: null, lastStatusCode: 500, lastError: 'late', at: at(HOUR) };
    t.false(await webhooks.record(first.id, 'a', attempt));
    t.like((await webhooks.listForJob(owner.jobId)).find((delivery) => delivery.id === first.id), { status: 'pending', attempts: 0, lastError: null });
    t.true(await webhooks.record(first.id, 'e', { ...attempt, status: 'delivered', lastStatusCode: 204, lastError: null }));
    t.like((await webhooks.listForJob(owner.jobId)).find((delivery) => delivery.id === first.id), { status: 'delivered', attempts: 1 });
  });

  test(`${kind}: a job's delivery log holds that job's deliveries only`, async (t) => {
    const backend = await fresh(t, kind);
    const alice = await job(backend);
    const bob = await job(backend);
    const mine = await pending(backend, alice, at(0), { createdAt: at(0) });
    const alsoMine = await pending(backend, alice, at(0), { event: 'started', createdAt: at(SECOND) });
    await pending(backend, bob, at(0));
    t.deepEqual((await backend.repos.webhooks.listForJob(alice.jobId)).map((delivery) => delivery.id), [mine.id, alsoMine.id]);
    t.deepEqual(await backend.repos.webhooks.listForJob(randomUUID()), []);
    // A redelivery names the job: another job's delivery is not made pending again through it.
    const failed = await pending(backend, bob, at(0), { status: 'failed', attempts: 8, nextAttemptAt: null });
    t.false(await backend.repos.webhooks.redeliver(alice.jobId, failed.id, at(HOUR)));
    t.like((await backend.repos.webhooks.listForJob(bob.jobId)).find((delivery) => delivery.id === failed.id), { status: 'failed', attempts: 8, nextAttemptAt: null });
    t.true(await backend.repos.webhooks.redeliver(bob.jobId, failed.id, at(HOUR)));
    t.like((await backend.repos.webhooks.listForJob(bob.jobId)).find((delivery) => delivery.id === failed.id), { status: 'pending', attempts: 0, nextAttemptAt: at(HOUR) });
  });

  test(`${kind}: an attempt once the retry window since the first attempt has run out gives up, whatever the attempts left`, async (t) => {
    const backend = await fresh(t, kind);
    const owner = await job(backend);
    // The second attempt, two hours after the first (a worker was down): the one-hour window is over.
    const late = await pending(backend, owner, at(2 * HOUR), { attempts: 1, firstAttemptAt: at(0), lastStatusCode: 500, lastError: 'HTTP 500' });
    const sender = fakeSender(FAILING);
    t.deepEqual(await worker(backend, sender, { now: () => at(2 * HOUR) }).execute(), { sent: 1 });
    t.like((await backend.repos.webhooks.listForJob(owner.jobId))[0], { id: late.id, status: 'failed', attempts: 2, nextAttemptAt: null, firstAttemptAt: at(0) });
    // Within the window the same failure is tried again.
    const early = await job(backend);
    await pending(backend, early, at(10 * SECOND), { attempts: 1, firstAttemptAt: at(0) });
    await worker(backend, sender, { now: () => at(10 * SECOND) }).execute();
    t.like((await backend.repos.webhooks.listForJob(early.jobId))[0], { status: 'pending', attempts: 2, firstAttemptAt: at(0) });
  });

  test(`${kind}: an attempt that throws (the signing secret cannot be read) is recorded as a failed attempt, counted against the budget`, async (t) => {
    const backend = await fresh(t, kind);
    const owner = await job(backend);
    await pending(backend, owner, at(0));
    const sender = fakeSender(DELIVERING);
    const broken: Secrets = async () => {
      throw new Error('secret store down');
    };
    t.deepEqual(await worker(backend, sender, { now: () => at(SECOND) }, { signingSecrets: broken }).execute(), { sent: 1 });
    t.like((await backend.repos.webhooks.listForJob(owner.jobId))[0], { status: 'pending', attempts: 1, firstAttemptAt: at(SECOND), lastStatusCode: null, lastError: 'secret store down' });
    t.is(sender.sent.length, 0);
  });

  test(`${kind}: a delivered attempt is final: the delivery is not sent again`, async (t) => {
    const backend = await fresh(t, kind);
    const owner = await job(backend);
    const delivery = await pending(backend, owner, at(0));
    const sender = fakeSender(DELIVERING);
    t.deepEqual(await worker(backend, sender, { now: () => at(SECOND) }).execute(), { sent: 1 });
    t.like((await backend.repos.webhooks.listForJob(owner.jobId))[0], { id: delivery.id, status: 'delivered', attempts: 1, nextAttemptAt: null, lastStatusCode: 204, lastError: null });
    t.deepEqual(await worker(backend, sender, { now: () => at(2 * HOUR) }).execute(), { sent: 0 });
    t.is(sender.sent.length, 1);
  });

  test(`${kind}: one tick sends at most WEBHOOK_CONCURRENCY deliveries`, async (t) => {
    const backend = await fresh(t, kind);
    const owner = await job(backend);
    for (let n = 0; n < 3; n += 1) await pending(backend, owner, at(n * SECOND));
    const sender = fakeSender(DELIVERING);
    t.deepEqual(await worker(backend, sender, { now: () => at(10 * SECOND) }, { concurrency: 2 }).execute(), { sent: 2 });
    t.is(sender.sent.length, 2);
  });

  test(`${kind}: while one worker is sending a delivery, another worker does not send it too`, async (t) => {
    const backend = await fresh(t, kind);
    const owner = await job(backend);
    const delivery = await pending(backend, owner, at(0));
    const sender = fakeSender(DELIVERING);
    const release = sender.holdNext();
    const clock = { now: () => at(SECOND) };
    const sending = worker(backend, sender, clock, { claimer: 'slow' }).execute();
    await within((async () => { while (sender.sent.length === 0) await new Promise((done) => setTimeout(done, 10)); })(), 10_000, 'the first send');
    t.deepEqual(await worker(backend, sender, clock, { claimer: 'other' }).execute(), { sent: 0 });
    release();
    t.deepEqual(await sending, { sent: 1 });
    t.deepEqual(sender.sent.map((request) => request.id), [delivery.id]);
    t.like((await backend.repos.webhooks.listForJob(owner.jobId))[0], { status: 'delivered', attempts: 1 });
  });

  // Pins: a worker whose claim ran out while it was sending (another worker has the delivery now) records nothing,
  // says so in the log, and counts no attempt: the other worker's outcome is the one that stands, counted once.
  test(`${kind}: an attempt whose claim ran out during the send is neither recorded nor counted, and is logged`, async (t) => {
    const backend = await fresh(t, kind);
    const owner = await job(backend);
    await pending(backend, owner, at(0));
    const slowSender = fakeSender(FAILING);
    const release = slowSender.holdNext();
    const warnings: string[] = [];
    const logger: Logger = { ...quietLogger, warn: (message: string) => void warnings.push(message), child: () => logger };
    const counted: string[] = [];
    const metrics: JobMetrics = { ...NO_JOB_METRICS, webhookAttempt: (outcome) => void counted.push(outcome) };
    const sending = worker(backend, slowSender, { now: () => at(SECOND) }, { claimer: 'slow', logger, metrics }).execute();
    await within((async () => { while (slowSender.sent.length === 0) await new Promise((done) => setTimeout(done, 10)); })(), 10_000, 'the first send');
    // Its claim ran out: an hour later another worker takes the delivery and delivers it.
    t.deepEqual(await worker(backend, fakeSender(DELIVERING), { now: () => at(HOUR) }, { claimer: 'other', metrics }).execute(), { sent: 1 });
    release();
    t.deepEqual(await sending, { sent: 1 });
    t.like((await backend.repos.webhooks.listForJob(owner.jobId))[0], { status: 'delivered', attempts: 1, lastStatusCode: 204 });
    t.deepEqual(counted, ['delivered'], 'the late failure of the first worker is not counted');
    t.deepEqual(warnings, ['webhook attempt not recorded: the claim was lost (redelivered or expired)']);
  });
}

for (const kind of DATABASES) {
  test(`${kind}: a long failure text is recorded cut to the column, not lost with the attempt`, async (t) => {
    const backend = await fresh(t, kind);
    const owner = await job(backend);
    await pending(backend, owner, at(0));
    // A refusal names the host, and a URL may be 2048 characters long.
    const sender = fakeSender(() => ({ delivered: false, statusCode: null, error: `refused: ${'a'.repeat(1000)}.example resolves to 10.0.0.1` }));
    t.deepEqual(await worker(backend, sender, { now: () => at(SECOND) }).execute(), { sent: 1 });
    const [recorded] = await backend.repos.webhooks.listForJob(owner.jobId);
    t.like(recorded, { status: 'pending', attempts: 1 });
    t.is(recorded!.lastError, `refused: ${'a'.repeat(503)}`);
  });
}
