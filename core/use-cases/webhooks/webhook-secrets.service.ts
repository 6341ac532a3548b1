import type { Clock } from '../../ports/clock.port.ts';
import type { WebhookSecretRecord, WebhookSecretStore } from '../../ports/webhook-secret-store.port.ts';

export interface WebhookSecretsDeps {
  store: WebhookSecretStore;
  clock: Clock;
  /** A fresh `whsec_` secret (random bytes). */
  newSecret: () => string;
}

/** After a rotation the replaced secret signs too for this long (ADR 036), so receivers can switch without a gap. */
export const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;

/** What the user sees of their secret: the secret itself, and until when the replaced one still signs. */
export interface WebhookSecretView {
  secret: string;
  createdAt: Date;
  rotatedAt: Date | null;
  previousValidUntil: Date | null;
}

/**
 * GET /webhook-secret and POST /webhook-secret/rotate. A user's first read creates the secret; a rotation keeps
 * the old one signing for ROTATION_GRACE_MS (the delivery sends both signatures, space-separated, as the Standard
 * Webhooks spec allows), and two rotations at once do not lose one: the loser retries on what the winner stored.
 */
export class WebhookSecrets {
  constructor(private readonly deps: WebhookSecretsDeps) {}

  async get(userId: string): Promise<WebhookSecretView> {
    const now = this.deps.clock.now();
    const stored = await this.stored(userId, now);
    return this.view(stored, now);
  }

  async rotate(userId: string): Promise<WebhookSecretView> {
    for (;;) {
      const now = this.deps.clock.now();
      const current = await this.stored(userId, now);
      const next = this.deps.newSecret();
      const previousUntil = new Date(now.getTime() + ROTATION_GRACE_MS);
      // The answer is what this rotation wrote, not a fresh read: a rotation racing right behind this one may
      // already have replaced it, and both callers would then be handed the other's secret.
      if (await this.deps.store.rotate(userId, current.secret, next, previousUntil, now)) {
        return this.view({ ...current, secret: next, previousSecret: current.secret, previousUntil, rotatedAt: now }, now);
      }
    }
  }

  /** The secrets a delivery signs with now: the current one, and the replaced one while its grace lasts. */
  async signingSecrets(userId: string): Promise<string[]> {
    const now = this.deps.clock.now();
    const stored = await this.stored(userId, now);
    const previous = this.previousStillSigning(stored, now);
    return previous ? [stored.secret, previous] : [stored.secret];
  }

  /** The user's secret record, created on first use. */
  private async stored(userId: string, now: Date): Promise<WebhookSecretRecord> {
    return (await this.deps.store.find(userId)) ?? (await this.deps.store.createIfMissing(userId, this.deps.newSecret(), now));
  }

  private previousStillSigning(stored: WebhookSecretRecord, now: Date): string | null {
    return stored.previousSecret !== null && stored.previousUntil !== null && stored.previousUntil > now ? stored.previousSecret : null;
  }

  private view(stored: WebhookSecretRecord, now: Date): WebhookSecretView {
    const previous = this.previousStillSigning(stored, now);
    return { secret: stored.secret, createdAt: stored.createdAt, rotatedAt: stored.rotatedAt, previousValidUntil: previous ? stored.previousUntil : null };
  }
}
