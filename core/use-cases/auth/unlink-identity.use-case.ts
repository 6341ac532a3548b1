import { fail, ok, type Result } from '../../domain/result.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';

/** Removes a linked identity, unless it is the user's last way to sign in (no password, no other identity). */
export class UnlinkIdentity {
  constructor(private readonly deps: { uow: UnitOfWork }) {}

  async execute(input: { userId: string; provider: string }): Promise<Result<void>> {
    return this.deps.uow.run(async (tx): Promise<Result<void>> => {
      // Listing inside the transaction locks the rows: two removals at once cannot each leave the other's.
      const identities = await tx.identities.listForUser(input.userId);
      if (!identities.some((identity) => identity.provider === input.provider)) return fail('NOT_FOUND', `No ${input.provider} identity is linked`);
      const user = await tx.users.findById(input.userId);
      const hasPassword = user ? Boolean((await tx.users.findByEmail(user.email))?.passwordHash) : false;
      if (!hasPassword && identities.length <= 1) {
        return fail('CONFLICT', 'This is your only way to sign in: set a password or link another provider first');
      }
      await tx.identities.unlink(input.userId, input.provider);
      return ok(undefined);
    });
  }
}
