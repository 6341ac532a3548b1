import type { CoinTransaction } from '../../domain/coin.ts';
import { parsePageRequest, type Page } from '../../domain/pagination.ts';
import { fail, ok, type Result } from '../../domain/result.ts';
import type { CoinLedger } from '../../ports/coin-ledger.port.ts';
import type { UserRepository } from '../../ports/user-repository.port.ts';

/** Any user's ledger, for administrators; an unknown user is NOT_FOUND (not an empty page). */
export class ListUserTransactions {
  constructor(private readonly deps: { users: UserRepository; ledger: CoinLedger }) {}

  async execute(input: { userId: string; page?: unknown; limit?: unknown }): Promise<Result<Page<CoinTransaction>>> {
    const request = parsePageRequest(input);
    if (!request.ok) return request;
    if (!(await this.deps.users.findById(input.userId))) return fail('NOT_FOUND', 'User not found');
    return ok(await this.deps.ledger.list(input.userId, request.value));
  }
}
