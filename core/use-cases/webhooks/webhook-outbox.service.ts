import type { GenerationJob } from '../../domain/job.ts';
import type { WebhookEvent, WebhookSubscription } from '../../domain/webhook-event.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { IdGenerator } from '../../ports/id-generator.port.ts';
import type { Transaction } from '../../ports/unit-of-work.port.ts';

/**
 * Writes a job's webhook deliveries into the transaction of the job's move (ADR 036: the outbox pattern): a
 * delivery exists exactly when its move committed. The worker's `webhook-delivery` task sends it later.
 */
export class WebhookOutbox {
  constructor(private readonly deps: { ids: IdGenerator; clock: Clock }) {}

  /** Stores the job's webhook with the job (the submit's transaction). */
  async subscribe(tx: Transaction, job: GenerationJob, subscription: WebhookSubscription): Promise<void> {
    await tx.webhooks.subscribe(job.id, job.userId, subscription, job.createdAt);
  }

  /** One pending delivery of `event` when the job's owner asked for it; nothing otherwise. */
  async record(tx: Transaction, job: GenerationJob, event: WebhookEvent | null, data: Record<string, unknown>): Promise<void> {
    if (event === null) return;
    const subscription = await tx.webhooks.subscriptionOf(job.id);
    if (!subscription?.events.includes(event)) return;
    const at = this.deps.clock.now();
    const payload = JSON.stringify({ type: `job.${event}`, timestamp: at.toISOString(), data: { jobId: job.id, ...data } });
    await tx.webhooks.add({
      id: this.deps.ids.newId(),
      jobId: job.id,
      userId: subscription.userId,
      url: subscription.url,
      event,
      payload,
      status: 'pending',
      attempts: 0,
      firstAttemptAt: null,
      nextAttemptAt: at,
      lastStatusCode: null,
      lastError: null,
      createdAt: at,
      updatedAt: at,
    });
  }
}
