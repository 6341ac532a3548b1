import type { CoinTransaction } from '../../domain/coin.ts';
import { parsePageRequest, type Page } from '../../domain/pagination.ts';
import { ok, type Result } from '../../domain/result.ts';
import type { CoinLedger } from '../../ports/coin-ledger.port.ts';

/** The caller's own ledger, newest first. */
export class ListTransactions {
  constructor(private readonly deps: { ledger: CoinLedger }) {}

  async execute(input: { userId: string; page?: unknown; limit?: unknown }): Promise<Result<Page<CoinTransaction>>> {
    const request = parsePageRequest(input);
    if (!request.ok) return request;
    return ok(await this.deps.ledger.list(input.userId, request.value));
  }
}
