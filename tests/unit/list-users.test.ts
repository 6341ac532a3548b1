import test from 'ava';
import type { UserRepository } from '../../core/ports/user-repository.port.ts';
import { ListUsers, USER_QUERY_MAX } from '../../core/use-cases/coins/list-users.use-case.ts';

// Pins the administrators' user search: the query is trimmed (blank means no filter), at most 254 characters and a
// string; a bad page request is refused before the repository is asked.
test('user search: trimmed query, blank is no filter, bounded, and a bad page is refused unasked', async (t) => {
  const asked: (string | undefined)[] = [];
  const users = { list: async (_page: unknown, query?: string) => (asked.push(query), { items: [], page: 1, limit: 20, total: 0 }) } as unknown as UserRepository;
  const list = new ListUsers({ users });
  t.true((await list.execute({ q: '  ada@ ' })).ok);
  t.true((await list.execute({ q: '   ' })).ok);
  t.true((await list.execute({})).ok);
  t.true((await list.execute({ q: 'x'.repeat(USER_QUERY_MAX) })).ok);
  t.deepEqual(asked, ['ada@', undefined, undefined, 'x'.repeat(USER_QUERY_MAX)]);
  for (const q of ['x'.repeat(USER_QUERY_MAX + 1), 5, ['a']]) t.like(await list.execute({ q }), { ok: false, code: 'VALIDATION.FAILED' }, typeof q);
  t.like(await list.execute({ page: 'first' }), { ok: false, code: 'VALIDATION.FAILED' });
  t.is(asked.length, 4, 'refused requests never reach the repository');
});
