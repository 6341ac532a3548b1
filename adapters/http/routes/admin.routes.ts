import type { Request, Response } from 'express';
import type { User } from '../../../core/domain/user.ts';
import type { AdjustDirection, AdminAdjustCoins } from '../../../core/use-cases/coins/admin-adjust-coins.use-case.ts';
import type { GetAuditLog } from '../../../core/use-cases/coins/get-audit-log.use-case.ts';
import type { ListUserTransactions } from '../../../core/use-cases/coins/list-user-transactions.use-case.ts';
import type { ListUsers } from '../../../core/use-cases/coins/list-users.use-case.ts';
import { fail } from '../../../core/domain/result.ts';
import type { ApiRouter, RouteSpec } from '../api-router.ts';
import { auditEntryDto, auditEntrySchema, transactionDto, transactionSchema } from '../coin-dto.ts';
import { userDto, userSchema } from '../dto.ts';
import { sendError, sendFail } from '../error-table.ts';
import { failureResponse, idempotencyKeyHeader, idempotencyKeyValidation, type IdempotentResponder } from '../idempotency.ts';
import { pageQuery, pageSchema, ref } from '../openapi.ts';
import { adminReasonRule, amountRule, updateUserCoinBody } from './coin-validation.ts';
import { isUuid } from '../../../core/domain/ids.ts';

export interface AdminRoutesDeps {
  adjust: AdminAdjustCoins;
  users: ListUsers;
  userTransactions: ListUserTransactions;
  audit: GetAuditLog;
  idempotency: IdempotentResponder;
}

const insufficient = { description: 'Balance too low', schema: ref('Error') };
const notFound = { description: 'No such user (also for an id that is not a UUID)', schema: ref('Error') };

export const adminRoutes = (deps: AdminRoutesDeps) => (api: ApiRouter) => {
  const adjust = (direction: AdjustDirection) =>
    api.add(
      {
        method: 'post',
        path: `/admin/coin/${direction}/:userId`,
        summary: direction === 'add' ? "Add coins to a user's balance" : "Take coins from a user's balance (never below zero)",
        tag: 'admin',
        auth: 'admin',
        validate: { amount: amountRule, reason: adminReasonRule, ...idempotencyKeyValidation },
        body: updateUserCoinBody,
        headers: idempotencyKeyHeader,
        responses: {
          200: { description: 'The user after the change', schema: userSchema },
          ...(direction === 'deduct' ? { 402: insufficient } : {}),
          404: notFound,
          409: { description: 'Idempotency-Key reused with another body, or still in progress', schema: ref('Error') },
        } as RouteSpec['responses'],
      },
      (req: Request, res: Response) =>
        deps.idempotency.respond(req, res, async (commitWith) => {
          const userId = String(req.params.userId);
          if (!isUuid(userId)) return failureResponse(fail('NOT_FOUND', 'User not found'));
          const body = req.body as Record<string, unknown>;
          const toResponse = (user: User) => ({ status: 200, body: userDto(user) });
          const result = await deps.adjust.execute({
            actorId: req.principal!.userId,
            userId: userId.toLowerCase(),
            direction,
            amount: body.amount,
            reason: body.reason,
            alsoCommit: commitWith(toResponse),
          });
          return result.ok ? toResponse(result.value) : failureResponse(result);
        }),
    );
  adjust('add');
  adjust('deduct');

  api.add(
    {
      method: 'get',
      path: '/admin/users',
      summary: 'Users, newest first; q matches part of the email or display name',
      tag: 'admin',
      auth: 'admin',
      query: { ...pageQuery, q: { type: 'string', maxLength: 254 } },
      responses: { 200: { description: 'A page of users', schema: pageSchema(userSchema) } },
    },
    async (req: Request, res: Response) => {
      const result = await deps.users.execute({ page: req.query.page, limit: req.query.limit, q: req.query.q });
      if (!result.ok) return sendFail(res, result);
      res.json({ ...result.value, items: result.value.items.map(userDto) });
    },
  );

  api.add(
    {
      method: 'get',
      path: '/admin/users/:id/transactions',
      summary: "A user's coin ledger, newest first",
      tag: 'admin',
      auth: 'admin',
      query: pageQuery,
      responses: { 200: { description: 'A page of transactions', schema: pageSchema(transactionSchema) }, 404: notFound },
    },
    async (req: Request, res: Response) => {
      const userId = String(req.params.id);
      if (!isUuid(userId)) return sendError(res, 404, 'User not found');
      const result = await deps.userTransactions.execute({ userId: userId.toLowerCase(), page: req.query.page, limit: req.query.limit });
      if (!result.ok) return sendFail(res, result);
      res.json({ ...result.value, items: result.value.items.map(transactionDto) });
    },
  );

  api.add(
    {
      method: 'get',
      path: '/admin/audit',
      summary: 'What administrators did (coin changes), newest first',
      tag: 'admin',
      auth: 'admin',
      query: pageQuery,
      responses: { 200: { description: 'A page of audit entries', schema: pageSchema(auditEntrySchema) } },
    },
    async (req: Request, res: Response) => {
      const result = await deps.audit.execute({ page: req.query.page, limit: req.query.limit });
      if (!result.ok) return sendFail(res, result);
      res.json({ ...result.value, items: result.value.items.map(auditEntryDto) });
    },
  );
};
