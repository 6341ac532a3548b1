import { normalizeEmail, type User } from '../../domain/user.ts';
import { fail, ok, type Result } from '../../domain/result.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { UserRepository } from '../../ports/user-repository.port.ts';

/** Makes an existing account an administrator (the `npm run admin -- promote` command). */
export class PromoteUser {
  constructor(private readonly deps: { users: UserRepository; clock: Clock }) {}

  async execute(input: { email: string }): Promise<Result<User>> {
    const user = await this.deps.users.findByEmail(normalizeEmail(input.email));
    if (!user) return fail('NOT_FOUND', `No user with email ${input.email}`);
    await this.deps.users.setRole(user.id, 'admin', this.deps.clock.now());
    const { passwordHash: _hidden, ...rest } = user;
    return ok({ ...rest, role: 'admin' });
  }
}
