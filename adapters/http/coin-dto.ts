import { AUDIT_ACTIONS, type AuditEntry } from '../../core/domain/audit.ts';
import { COIN_REASONS, type CoinTransaction } from '../../core/domain/coin.ts';
import type { JsonSchema } from './openapi.ts';

export const transactionDto = (transaction: CoinTransaction) => ({
  id: transaction.id,
  amount: transaction.amount,
  reason: transaction.reason,
  relatedEntityId: transaction.relatedEntityId,
  balanceAfter: transaction.balanceAfter,
  createdAt: transaction.createdAt.toISOString(),
});

export const transactionSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'amount', 'reason', 'relatedEntityId', 'balanceAfter', 'createdAt'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    amount: { type: 'integer', description: 'Negative for deductions' },
    reason: { type: 'string', enum: [...COIN_REASONS] },
    relatedEntityId: { type: ['string', 'null'] },
    balanceAfter: { type: 'integer' },
    createdAt: { type: 'string', format: 'date-time' },
  },
};

export const auditEntryDto = (entry: AuditEntry) => ({
  id: entry.id,
  actorId: entry.actorId,
  action: entry.action,
  targetUserId: entry.targetUserId,
  details: entry.details,
  createdAt: entry.createdAt.toISOString(),
});

export const auditEntrySchema: JsonSchema = {
  type: 'object',
  required: ['id', 'actorId', 'action', 'targetUserId', 'details', 'createdAt'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    actorId: { type: 'string', format: 'uuid' },
    action: { type: 'string', enum: [...AUDIT_ACTIONS] },
    targetUserId: { type: ['string', 'null'], format: 'uuid' },
    details: { type: 'object', description: 'coin changes: amount (signed), reason, balanceAfter, transactionId; job.cancel: jobId, refunded; queue.*: messageId, taskType, jobId; api-key.create: keyId, name, scopes, prefix, expiresAt; api-key.revoke: keyId, name, prefix; template.*: templateId, name, version, changed (field names)' },
    createdAt: { type: 'string', format: 'date-time' },
  },
};
