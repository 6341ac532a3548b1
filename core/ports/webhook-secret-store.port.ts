/** A user's webhook signing secret (`whsec_...`), and the one it replaced while that one still signs. */
export interface WebhookSecretRecord {
  userId: string;
  secret: string;
  previousSecret: string | null;
  /** Until when `previousSecret` still signs (the rotation's grace period). */
  previousUntil: Date | null;
  createdAt: Date;
  rotatedAt: Date | null;
}

export interface WebhookSecretStore {
  find(userId: string): Promise<WebhookSecretRecord | null>;
  /** Stores `secret` as the user's first one unless the user has one; either way returns what is stored. */
  createIfMissing(userId: string, secret: string, at: Date): Promise<WebhookSecretRecord>;
  /**
   * Makes `next` the user's secret only while the stored one is still `expected` (two rotations at once: one wins);
   * `expected` becomes the previous secret until `previousUntil`. False when the stored secret was not `expected`.
   */
  rotate(userId: string, expected: string, next: string, previousUntil: Date, at: Date): Promise<boolean>;
}
