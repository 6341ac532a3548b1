import { displayNameProblem, type User } from '../../domain/user.ts';
import { fail, ok, validationFailed, type Result } from '../../domain/result.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { UserRepository } from '../../ports/user-repository.port.ts';

export interface UpdateProfileDeps {
  users: UserRepository;
  clock: Clock;
}

/** A user changes what others see of them: the display name (the email is the login, and stays; ADR 062). */
export class UpdateProfile {
  constructor(private readonly deps: UpdateProfileDeps) {}

  async execute(input: { userId: string; displayName: unknown }): Promise<Result<User>> {
    const problem = displayNameProblem(input.displayName);
    if (problem) return validationFailed([{ field: 'displayName', message: problem }]);
    const user = await this.deps.users.setDisplayName(input.userId, (input.displayName as string).trim(), this.deps.clock.now());
    return user ? ok(user) : fail('NOT_FOUND', 'User not found');
  }
}
