import { parsePageRequest, type Page } from '../../domain/pagination.ts';
import { ok, validationFailed, type Result } from '../../domain/result.ts';
import type { User } from '../../domain/user.ts';
import type { UserRepository } from '../../ports/user-repository.port.ts';

export const USER_QUERY_MAX = 254;

/** Users for administrators, newest first; `q` matches part of the email or the display name. */
export class ListUsers {
  constructor(private readonly deps: { users: UserRepository }) {}

  async execute(input: { page?: unknown; limit?: unknown; q?: unknown }): Promise<Result<Page<User>>> {
    const request = parsePageRequest(input);
    if (!request.ok) return request;
    if (input.q !== undefined && (typeof input.q !== 'string' || input.q.length > USER_QUERY_MAX)) {
      return validationFailed([{ field: 'q', message: `must be a string of at most ${USER_QUERY_MAX} characters` }]);
    }
    const query = typeof input.q === 'string' && input.q.trim() !== '' ? input.q.trim() : undefined;
    return ok(await this.deps.users.list(request.value, query));
  }
}
