import type { WebhookEvent, WebhookSubscription } from '../domain/webhook-event.ts';

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

/**
 * One webhook call of a job (ADR 036): written in the transaction of the job's move, so it exists exactly when
 * the move committed. The row is the source of truth of its retries; `id` is the `webhook-id`, the same on every
 * attempt and redelivery.
 */
export interface WebhookDelivery {
  id: string;
  jobId: string;
  userId: string;
  url: string;
  event: WebhookEvent;
  /** The JSON body, exactly as signed. */
  payload: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  firstAttemptAt: Date | null;
  nextAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What one attempt leaves on its delivery. */
export interface WebhookAttemptRecord {
  status: WebhookDeliveryStatus;
  attempts: number;
  firstAttemptAt: Date;
  nextAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastError: string | null;
  at: Date;
}

export interface WebhookDeliveryRepository {
  /** Stores the job's webhook (with the job's creation). */
  subscribe(jobId: string, userId: string, subscription: WebhookSubscription, at: Date): Promise<void>;
  subscriptionOf(jobId: string): Promise<(WebhookSubscription & { userId: string }) | null>;
  add(delivery: WebhookDelivery): Promise<void>;
  /**
   * Claims up to `limit` due deliveries for `claimer` until `claimUntil`: each with a conditional update (pending,
   * due, and no claim or an expired one), so two workers never hold the same delivery at once.
   */
  claimDue(now: Date, claimer: string, claimUntil: Date, limit: number): Promise<WebhookDelivery[]>;
  /** Records an attempt and drops the claim, only while `claimer` still holds it. False when it no longer does. */
  record(id: string, claimer: string, attempt: WebhookAttemptRecord): Promise<boolean>;
  listForJob(jobId: string): Promise<WebhookDelivery[]>;
  /** Makes a delivery of the job pending again at once, with a fresh attempt budget. False when the job has no such delivery. */
  redeliver(jobId: string, id: string, at: Date): Promise<boolean>;
}
