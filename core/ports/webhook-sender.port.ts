/**
 * Sends one signed webhook request (Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature`).
 * The adapter owns the transport's safety: where it may connect (the SSRF policy, checked on the resolved
 * address), how long it may take, and that a redirect is a failure, not a second request.
 */
export interface WebhookRequest {
  url: string;
  /** The `webhook-id`: one per delivery, the same on every retry, so a receiver can drop repeats. */
  id: string;
  timestamp: Date;
  /** The JSON payload, exactly as signed. */
  body: string;
  /** `whsec_` secrets to sign with; more than one during a rotation (space-separated signatures). */
  secrets: readonly string[];
}

/** `delivered` only for a 2xx answer. `statusCode` is null when no answer came (refused, unreachable, timed out). */
export type WebhookResponse = { delivered: true; statusCode: number } | { delivered: false; statusCode: number | null; error: string };

export interface WebhookSender {
  send(request: WebhookRequest): Promise<WebhookResponse>;
}
