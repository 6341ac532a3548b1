import { Op } from 'sequelize';
import type { CoinReason, CoinTransaction } from '../../core/domain/coin.ts';
import { offsetOf, pageOf, type Page, type PageRequest } from '../../core/domain/pagination.ts';
import type { CoinLedger, LedgerApplyResult, LedgerEntry } from '../../core/ports/coin-ledger.port.ts';
import type { SequelizeDatabase } from './sequelize-database.ts';
import { asRows, coinTransactionModel, userModel, type CoinTransactionRow } from './models.ts';

export const toCoinTransaction = (row: CoinTransactionRow): CoinTransaction => ({
  id: row.id,
  userId: row.user_id,
  amount: Number(row.amount),
  reason: row.reason as CoinReason,
  relatedEntityId: row.related_entity_id,
  balanceAfter: Number(row.balance_after),
  actorId: row.actor_id,
  createdAt: new Date(row.created_at),
});

export class SequelizeCoinLedger implements CoinLedger {
  private readonly users;
  private readonly transactions;

  constructor(private readonly db: SequelizeDatabase) {
    this.users = userModel(db.sequelize);
    this.transactions = coinTransactionModel(db.sequelize);
  }

  apply(entry: LedgerEntry): Promise<LedgerApplyResult> {
    // The conditional update is the guard: no lock, no read-modify-write, right on both dialects.
    return this.db.run(async () => {
      const [changed] = await this.users.update(
        { coin_balance: this.db.sequelize.literal(`coin_balance + ${Math.trunc(entry.amount)}`) as unknown as number, updated_at: entry.createdAt },
        { where: { id: entry.userId, ...(entry.amount < 0 ? { coin_balance: { [Op.gte]: -entry.amount } } : {}) } },
      );
      if (changed !== 1) {
        const exists = await this.users.count({ where: { id: entry.userId } });
        return { ok: false, reason: exists ? 'insufficient' : 'user_not_found' };
      }
      const user = (await this.users.findByPk(entry.userId, { attributes: ['coin_balance'], raw: true })) as { coin_balance: number } | null;
      const row: CoinTransactionRow = {
        id: entry.id,
        user_id: entry.userId,
        amount: entry.amount,
        reason: entry.reason,
        related_entity_id: entry.relatedEntityId,
        balance_after: Number(user!.coin_balance),
        actor_id: entry.actorId,
        created_at: entry.createdAt,
      };
      await this.transactions.create(row);
      return { ok: true, transaction: toCoinTransaction(row) };
    });
  }

  async list(userId: string, request: PageRequest): Promise<Page<CoinTransaction>> {
    const { rows, count } = await this.transactions.findAndCountAll({
      where: { user_id: userId },
      order: [['created_at', 'DESC'], ['id', 'DESC']],
      limit: request.limit,
      offset: offsetOf(request),
      raw: true,
    });
    return pageOf(asRows<CoinTransactionRow>(rows).map(toCoinTransaction), request, count);
  }

  async findByRelatedEntity(userId: string, relatedEntityId: string): Promise<CoinTransaction[]> {
    const rows = await this.transactions.findAll({
      where: { user_id: userId, related_entity_id: relatedEntityId },
      order: [['created_at', 'ASC'], ['id', 'ASC']],
      raw: true,
    });
    return asRows<CoinTransactionRow>(rows).map(toCoinTransaction);
  }

  async sum(userId: string): Promise<number> {
    const total = await this.transactions.sum('amount', { where: { user_id: userId } });
    return Number(total ?? 0);
  }
}
