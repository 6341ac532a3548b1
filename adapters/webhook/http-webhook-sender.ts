import { lookup as systemLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { addressAllowed, webhookUrlProblem, type WebhookPolicy } from '../../core/domain/webhook-address.ts';
import type { WebhookRequest, WebhookResponse, WebhookSender } from '../../core/ports/webhook-sender.port.ts';

export interface ResolvedAddress {
  address: string;
  family: number;
}

export interface HttpWebhookSenderOptions {
  policy: WebhookPolicy;
  /** Connect plus the whole answer (WEBHOOK_TIMEOUT_MS). */
  timeoutMs: number;
  /** How a host name becomes addresses; the system resolver unless given. */
  resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
}

/** Bytes of the answer read at most (for the delivery log's error text); the rest is never read. */
export const RESPONSE_CAP_BYTES = 1024;
const ERROR_TEXT_CHARS = 200;

class RefusedAddress extends Error {}

/**
 * Webhooks over node:http(s), signed with the `standardwebhooks` package (ADR 036). The host name is resolved
 * once, every address it resolves to is checked against the SSRF policy, and the connection goes to the first of
 * them through a custom `lookup`, so a second resolution (DNS rebinding) cannot send it elsewhere. One timer
 * bounds connect and answer together; a redirect is reported, never followed; at most RESPONSE_CAP_BYTES of the
 * answer are read. No keep-alive agent: a receiver cannot hold a socket of the worker between deliveries.
 */
export class HttpWebhookSender implements WebhookSender {
  private readonly resolve: (hostname: string) => Promise<ResolvedAddress[]>;

  constructor(private readonly options: HttpWebhookSenderOptions) {
    this.resolve = options.resolve ?? ((hostname) => systemLookup(hostname, { all: true, verbatim: true }));
  }

  async send(request: WebhookRequest): Promise<WebhookResponse> {
    // Checked again at delivery: the policy may have changed since the URL was stored.
    const problem = webhookUrlProblem(request.url, this.options.policy);
    if (problem) return { delivered: false, statusCode: null, error: `refused: the webhook URL ${problem}` };
    const url = new URL(request.url);
    const headers = {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(request.body)),
      'user-agent': 'media-gen-webhooks',
      'webhook-id': request.id,
      'webhook-timestamp': String(Math.floor(request.timestamp.getTime() / 1000)),
      'webhook-signature': request.secrets.map((secret) => new Webhook(secret).sign(request.id, request.timestamp, request.body)).join(' '),
    };
    const client = url.protocol === 'https:' ? https : http;
    return new Promise<WebhookResponse>((settle) => {
      let settled = false;
      const finish = (response: WebhookResponse) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        req.destroy();
        settle(response);
      };
      const req = client.request(url, { method: 'POST', headers, agent: false, lookup: this.pinnedLookup() }, (res) => {
        const statusCode = res.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let bytes = 0;
        const done = () => finish(this.outcome(statusCode, res.headers.location, Buffer.concat(chunks).toString('utf8')));
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          bytes += chunk.length;
          if (bytes >= RESPONSE_CAP_BYTES) done();
        });
        res.on('end', done);
        res.on('error', done);
      });
      const timer = setTimeout(() => finish({ delivered: false, statusCode: null, error: `no answer within ${this.options.timeoutMs} ms` }), this.options.timeoutMs);
      req.on('error', (error) => {
        const text = error instanceof RefusedAddress ? error.message : `request failed: ${error.message}`;
        finish({ delivered: false, statusCode: null, error: text });
      });
      req.end(request.body);
    });
  }

  private outcome(statusCode: number, location: string | undefined, text: string): WebhookResponse {
    if (statusCode >= 200 && statusCode < 300) return { delivered: true, statusCode };
    if (statusCode >= 300 && statusCode < 400) {
      return { delivered: false, statusCode, error: `HTTP ${statusCode}: redirect${location ? ` to ${location.slice(0, ERROR_TEXT_CHARS)}` : ''} not followed` };
    }
    const excerpt = text.slice(0, ERROR_TEXT_CHARS).trim();
    return { delivered: false, statusCode, error: `HTTP ${statusCode}${excerpt ? `: ${excerpt}` : ''}` };
  }

  /** Resolves once, refuses if any address is outside the policy, and hands the connection the first one only. */
  private pinnedLookup(): LookupFunction {
    return (hostname, options, callback) => {
      this.resolve(hostname).then(
        (addresses) => {
          const refused = addresses.find((entry) => !addressAllowed(entry.address, this.options.policy));
          const first = addresses[0];
          if (refused || !first) {
            const reason = refused ? `${hostname} resolves to ${refused.address}, a private, loopback or reserved address` : `${hostname} resolves to no address`;
            callback(new RefusedAddress(`refused: ${reason}`), '', 0);
            return;
          }
          if (options.all) callback(null, [{ address: first.address, family: first.family }]);
          else callback(null, first.address, first.family);
        },
        (error: Error) => callback(error as NodeJS.ErrnoException, '', 0),
      );
    };
  }
}
