import { isUuid } from '../../domain/ids.ts';
import { fail, ok, type Fail, type Result } from '../../domain/result.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { JobRepository } from '../../ports/job-repository.port.ts';
import type { WebhookDelivery, WebhookDeliveryRepository } from '../../ports/webhook-delivery-repository.port.ts';

export interface WebhookDeliveryLogDeps {
  jobs: JobRepository;
  deliveries: WebhookDeliveryRepository;
  clock: Clock;
}

/**
 * GET /generate/{id}/webhooks and POST /generate/{id}/webhooks/{deliveryId}/redeliver: a job's deliveries, for its
 * owner only (anyone else gets the same 404 as for a job that does not exist).
 */
export class WebhookDeliveryLog {
  constructor(private readonly deps: WebhookDeliveryLogDeps) {}

  async list(userId: string, jobId: string): Promise<Result<WebhookDelivery[]> | Fail> {
    const owned = await this.owned(userId, jobId);
    if (owned) return owned;
    return ok(await this.deps.deliveries.listForJob(jobId));
  }

  /**
   * Sends the delivery again: pending at once, the same `webhook-id`, a new timestamp and signature when it leaves,
   * and a fresh attempt budget (attempts start again from 0).
   */
  async redeliver(userId: string, jobId: string, deliveryId: string): Promise<Result<WebhookDelivery> | Fail> {
    const owned = await this.owned(userId, jobId);
    if (owned) return owned;
    if (!isUuid(deliveryId) || !(await this.deps.deliveries.redeliver(jobId, deliveryId, this.deps.clock.now()))) return fail('NOT_FOUND', 'Webhook delivery not found');
    const delivery = (await this.deps.deliveries.listForJob(jobId)).find((item) => item.id === deliveryId);
    if (!delivery) return fail('NOT_FOUND', 'Webhook delivery not found');
    return ok(delivery);
  }

  /** A failure unless `userId` owns the job. */
  private async owned(userId: string, jobId: string): Promise<Fail | null> {
    const job = isUuid(jobId) ? await this.deps.jobs.findById(jobId) : null;
    if (!job || job.userId !== userId) return fail('NOT_FOUND', 'Job not found');
    return null;
  }
}
