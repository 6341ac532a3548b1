import type { WebhookSubscription } from '../../core/domain/webhook-event.ts';
import type { WebhookAttemptRecord, WebhookDelivery, WebhookDeliveryRepository } from '../../core/ports/webhook-delivery-repository.port.ts';
import type { MemoryStore } from './memory-store.ts';

type Stored = WebhookDelivery & { claimedBy: string | null; claimUntil: Date | null };
type Subscription = WebhookSubscription & { userId: string };

const view = ({ claimedBy: _by, claimUntil: _until, ...delivery }: Stored): WebhookDelivery => structuredClone(delivery);

/** WebhookDeliveryRepository in memory (each call atomic: the store's lock). */
export class MemoryWebhookDeliveryRepository implements WebhookDeliveryRepository {
  private readonly subscriptions: Map<string, Subscription>;
  private readonly deliveries: Map<string, Stored>;

  constructor(store: MemoryStore) {
    this.subscriptions = store.table('job_webhooks');
    this.deliveries = store.table('webhook_deliveries');
  }

  async subscribe(jobId: string, userId: string, subscription: WebhookSubscription): Promise<void> {
    if (this.subscriptions.has(jobId)) throw new Error(`job ${jobId} has a webhook already`);
    this.subscriptions.set(jobId, structuredClone({ ...subscription, userId }));
  }

  async subscriptionOf(jobId: string): Promise<Subscription | null> {
    const found = this.subscriptions.get(jobId);
    return found ? structuredClone(found) : null;
  }

  async add(delivery: WebhookDelivery): Promise<void> {
    if (this.deliveries.has(delivery.id)) throw new Error(`webhook delivery ${delivery.id} is already stored`);
    this.deliveries.set(delivery.id, { ...structuredClone(delivery), claimedBy: null, claimUntil: null });
  }

  async claimDue(now: Date, claimer: string, claimUntil: Date, limit: number): Promise<WebhookDelivery[]> {
    const due = [...this.deliveries.values()]
      .filter((row) => row.status === 'pending' && row.nextAttemptAt !== null && row.nextAttemptAt <= now && (row.claimUntil === null || row.claimUntil <= now))
      .sort((a, b) => a.nextAttemptAt!.getTime() - b.nextAttemptAt!.getTime())
      .slice(0, limit);
    for (const row of due) Object.assign(row, { claimedBy: claimer, claimUntil });
    return due.map(view);
  }

  async record(id: string, claimer: string, attempt: WebhookAttemptRecord): Promise<boolean> {
    const row = this.deliveries.get(id);
    if (!row || row.claimedBy !== claimer) return false;
    const { at, ...rest } = attempt;
    Object.assign(row, { ...rest, updatedAt: at, claimedBy: null, claimUntil: null });
    return true;
  }

  async listForJob(jobId: string): Promise<WebhookDelivery[]> {
    return [...this.deliveries.values()].filter((row) => row.jobId === jobId).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime()).map(view);
  }

  async redeliver(jobId: string, id: string, at: Date): Promise<boolean> {
    const row = this.deliveries.get(id);
    if (!row || row.jobId !== jobId) return false;
    Object.assign(row, { status: 'pending', attempts: 0, firstAttemptAt: null, nextAttemptAt: at, claimedBy: null, claimUntil: null, updatedAt: at });
    return true;
  }
}
