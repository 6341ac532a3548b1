import type { ParamSchema } from 'express-validator';
import { COIN_AMOUNT_MAX, COIN_AMOUNT_MIN, COIN_REASONS, USER_DEDUCTION_REASONS, isCoinAmount } from '../../../core/domain/coin.ts';
import { AMOUNT_PROBLEM, RELATED_ENTITY_PROBLEM, USER_REASON_PROBLEM } from '../../../core/use-cases/coins/deduct-coins.use-case.ts';
import { ADMIN_REASON_PROBLEM } from '../../../core/use-cases/coins/admin-adjust-coins.use-case.ts';
import type { JsonSchema } from '../openapi.ts';

/** express-validator field rules for the coin bodies; the messages are the core's, so both layers agree. */
const required = (check: (value: unknown) => boolean, problem: string): ParamSchema => ({
  in: ['body'],
  custom: {
    options: (value: unknown) => {
      if (value === undefined) throw new Error('is required');
      if (!check(value)) throw new Error(problem);
      return true;
    },
  },
});

const oneOf = (allowed: readonly string[]) => (value: unknown) => typeof value === 'string' && allowed.includes(value);

export const amountRule = required(isCoinAmount, AMOUNT_PROBLEM);
export const userReasonRule = required(oneOf(USER_DEDUCTION_REASONS), USER_REASON_PROBLEM);
export const adminReasonRule = required(oneOf(COIN_REASONS), ADMIN_REASON_PROBLEM);
export const relatedEntityRule: ParamSchema = {
  in: ['body'],
  optional: { options: { values: 'null' } },
  isString: { errorMessage: RELATED_ENTITY_PROBLEM, bail: true },
  isLength: { options: { min: 1, max: 128 }, errorMessage: RELATED_ENTITY_PROBLEM },
};

const amountSchema: JsonSchema = { type: 'integer', minimum: COIN_AMOUNT_MIN, maximum: COIN_AMOUNT_MAX };

export const deductCoinBody: JsonSchema = {
  type: 'object',
  required: ['amount', 'reason'],
  properties: {
    amount: amountSchema,
    reason: { type: 'string', enum: [...USER_DEDUCTION_REASONS] },
    relatedEntityId: { type: 'string', minLength: 1, maxLength: 128, description: 'For example the requestId of a later POST /generate' },
  },
};

export const updateUserCoinBody: JsonSchema = {
  type: 'object',
  required: ['amount', 'reason'],
  properties: { amount: amountSchema, reason: { type: 'string', enum: [...COIN_REASONS], description: 'Usually admin_adjustment' } },
};
