import { fail, ok, type Result } from '../../domain/result.ts';
import type { User } from '../../domain/user.ts';
import type { UserRepository } from '../../ports/user-repository.port.ts';

export class GetProfile {
  constructor(private readonly deps: { users: UserRepository }) {}

  async execute(input: { userId: string }): Promise<Result<User>> {
    const user = await this.deps.users.findById(input.userId);
    return user ? ok(user) : fail('AUTH.UNAUTHENTICATED', 'The account no longer exists');
  }
}
