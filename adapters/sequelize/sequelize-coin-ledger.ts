import type { CoinReason, CoinTransaction } from '../../core/domain/coin.ts';
import { offsetOf, pageOf, type Page, type PageRequest } from '../../core/domain/pagination.ts';
import type { CoinLedger, LedgerApplyResult, LedgerEntry } from '../../core/ports/coin-ledger.port.ts';
import { asRows, coinTransactionModel, type CoinTransactionRow } from './models.ts';
import type { SqlScope } from './sql-scope.ts';

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
  constructor(private readonly scope: SqlScope) {}

  private get transactions() {
    return coinTransactionModel(this.scope.sequelize);
  }

  apply(entry: LedgerEntry): Promise<LedgerApplyResult> {
    // The conditional update is the guard: no lock, no read-modify-write, right on both dialects. Plain
    // statements on the driver (`read`/`run`, not Sequelize's query path) because this runs while the user's
    // balance row is locked (SQLite: while the one writer is held), and every deduction waits for the previous one.
    const amount = Math.trunc(entry.amount);
    return this.scope.atomic(async (scope) => {
      const guard = amount < 0 ? ' AND coin_balance >= ?' : '';
      const update = `UPDATE users SET coin_balance = coin_balance + ?, updated_at = ? WHERE id = ?${guard}`;
      const params = [amount, entry.createdAt, entry.userId, ...(amount < 0 ? [-amount] : [])];
      let balance: number | null;
      if (scope.dialect === 'sqlite') {
        // SQLite returns the new balance from the update itself (RETURNING); no row means the guard refused.
        const [changed] = await scope.read<{ coin_balance: number }>(`${update} RETURNING coin_balance`, params);
        balance = changed ? Number(changed.coin_balance) : null;
      } else {
        const changed = await scope.run(update, params);
        // Our own update is visible in our transaction, and the row stays locked until commit.
        const [user] = changed === 1 ? await scope.read<{ coin_balance: number }>('SELECT coin_balance FROM users WHERE id = ?', [entry.userId]) : [];
        balance = user ? Number(user.coin_balance) : null;
      }
      if (balance === null) {
        const found = await scope.read('SELECT 1 AS found FROM users WHERE id = ?', [entry.userId]);
        return { ok: false, reason: found.length > 0 ? 'insufficient' : 'user_not_found' };
      }
      const row: CoinTransactionRow = {
        id: entry.id,
        user_id: entry.userId,
        amount,
        reason: entry.reason,
        related_entity_id: entry.relatedEntityId,
        balance_after: balance,
        actor_id: entry.actorId,
        created_at: entry.createdAt,
      };
      await scope.run(
        'INSERT INTO coin_transactions (id, user_id, amount, reason, related_entity_id, balance_after, actor_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        [row.id, row.user_id, row.amount, row.reason, row.related_entity_id, row.balance_after, row.actor_id, row.created_at],
      );
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
      ...this.scope.options,
    });
    return pageOf(asRows<CoinTransactionRow>(rows).map(toCoinTransaction), request, count);
  }

  async findByRelatedEntity(userId: string, relatedEntityId: string): Promise<CoinTransaction[]> {
    const rows = await this.transactions.findAll({
      where: { user_id: userId, related_entity_id: relatedEntityId },
      order: [['created_at', 'ASC'], ['id', 'ASC']],
      raw: true,
      ...this.scope.options,
    });
    return asRows<CoinTransactionRow>(rows).map(toCoinTransaction);
  }

  async sum(userId: string): Promise<number> {
    const total = await this.transactions.sum('amount', { where: { user_id: userId }, ...this.scope.options });
    return Number(total ?? 0);
  }
}
