import { fail, ok, type Result } from '../../domain/result.ts';
import type { IdentityRepository, LinkedIdentity } from '../../ports/identity-repository.port.ts';
import type { UserRepository } from '../../ports/user-repository.port.ts';

export interface LinkedIdentitiesView {
  /** Whether the user can also sign in with a password. */
  hasPassword: boolean;
  identities: LinkedIdentity[];
}

/** The sign-in identities linked to a user. */
export class ListIdentities {
  constructor(private readonly deps: { users: UserRepository; identities: IdentityRepository }) {}

  async execute(input: { userId: string }): Promise<Result<LinkedIdentitiesView>> {
    const user = await this.deps.users.findById(input.userId);
    if (!user) return fail('NOT_FOUND', 'User not found');
    const withHash = await this.deps.users.findByEmail(user.email);
    return ok({ hasPassword: Boolean(withHash?.passwordHash), identities: await this.deps.identities.listForUser(input.userId) });
  }
}
