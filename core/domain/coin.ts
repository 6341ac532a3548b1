export const COIN_REASONS = [
  'image_generation',
  'video_generation',
  'generation_refund',
  'admin_adjustment',
  'signup_bonus',
] as const;

export type CoinReason = (typeof COIN_REASONS)[number];

export const isCoinReason = (value: unknown): value is CoinReason =>
  typeof value === 'string' && (COIN_REASONS as readonly string[]).includes(value);

/** Reasons a user may give when deducting their own coins. */
export const USER_DEDUCTION_REASONS: readonly CoinReason[] = ['image_generation', 'video_generation'];

export const COIN_AMOUNT_MIN = 1;
export const COIN_AMOUNT_MAX = 1_000_000;

/** Longest `relatedEntityId` a deduction may carry (the column is 128 characters). */
export const RELATED_ENTITY_ID_MAX = 128;

export const isCoinAmount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= COIN_AMOUNT_MIN && value <= COIN_AMOUNT_MAX;

export interface CoinTransaction {
  id: string;
  userId: string;
  /** Signed: negative for deductions. */
  amount: number;
  reason: CoinReason;
  relatedEntityId: string | null;
  balanceAfter: number;
  actorId: string | null;
  createdAt: Date;
}
