import type { Request, Response } from 'express';
import type { DeductCoins } from '../../../core/use-cases/coins/deduct-coins.use-case.ts';
import type { ListTransactions } from '../../../core/use-cases/coins/list-transactions.use-case.ts';
import type { User } from '../../../core/domain/user.ts';
import type { ApiRouter } from '../api-router.ts';
import { transactionDto, transactionSchema } from '../coin-dto.ts';
import { userDto, userSchema } from '../dto.ts';
import { sendFail } from '../error-table.ts';
import { failureResponse, idempotencyKeyHeader, idempotencyKeyValidation, type IdempotentResponder } from '../idempotency.ts';
import { pageQuery, pageSchema, ref } from '../openapi.ts';
import { amountRule, deductCoinBody, relatedEntityRule, userReasonRule } from './coin-validation.ts';

export interface CoinRoutesDeps {
  deduct: DeductCoins;
  transactions: ListTransactions;
  idempotency: IdempotentResponder;
}

export const coinRoutes = (deps: CoinRoutesDeps) => (api: ApiRouter) => {
  api.add(
    {
      method: 'post',
      path: '/coin/deduct',
      summary: 'Spend coins (image_generation or video_generation); never below zero',
      tag: 'coins',
      auth: 'access',
      validate: { amount: amountRule, reason: userReasonRule, relatedEntityId: relatedEntityRule, ...idempotencyKeyValidation },
      body: deductCoinBody,
      headers: idempotencyKeyHeader,
      responses: {
        200: { description: 'The user after the deduction', schema: userSchema },
        402: { description: 'Balance too low', schema: ref('Error') },
        409: { description: 'Idempotency-Key reused with another body, or still in progress', schema: ref('Error') },
      },
    },
    (req: Request, res: Response) =>
      deps.idempotency.respond(req, res, async (commitWith) => {
        const body = req.body as Record<string, unknown>;
        const toResponse = (user: User) => ({ status: 200, body: userDto(user) });
        const { userId, user } = req.principal!;
        const input = { userId, user, amount: body.amount, reason: body.reason, relatedEntityId: body.relatedEntityId, alsoCommit: commitWith(toResponse) };
        const result = await deps.deduct.execute(input);
        return result.ok ? toResponse(result.value) : failureResponse(result);
      }),
  );

  api.add(
    {
      method: 'get',
      path: '/coin/transactions',
      summary: "The caller's coin ledger, newest first",
      tag: 'coins',
      auth: 'access',
      query: pageQuery,
      responses: { 200: { description: 'A page of transactions', schema: pageSchema(transactionSchema) } },
    },
    async (req: Request, res: Response) => {
      const result = await deps.transactions.execute({ userId: req.principal!.userId, page: req.query.page, limit: req.query.limit });
      if (!result.ok) return sendFail(res, result);
      res.json({ ...result.value, items: result.value.items.map(transactionDto) });
    },
  );
};
