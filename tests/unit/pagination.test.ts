import test from 'ava';
import { offsetOf, pageOf, parsePageRequest } from '../../core/domain/pagination.ts';

const PAGE = { field: 'page', message: `must be an integer from 1 to ${Number.MAX_SAFE_INTEGER}` };
const LIMIT = { field: 'limit', message: 'must be an integer from 1 to 100' };

test('page defaults to 1 and limit to 20; an empty value is the default', (t) => {
  t.deepEqual(parsePageRequest({}), { ok: true, value: { page: 1, limit: 20 } });
  t.deepEqual(parsePageRequest({ page: '', limit: '' }), { ok: true, value: { page: 1, limit: 20 } });
});

test('integers in range, as query text or numbers, are taken as they are: limit 1 to 100, page from 1', (t) => {
  t.deepEqual(parsePageRequest({ page: '3', limit: '1' }), { ok: true, value: { page: 3, limit: 1 } });
  t.deepEqual(parsePageRequest({ page: 1, limit: 100 }), { ok: true, value: { page: 1, limit: 100 } });
});

test('anything else is refused with the field and its range, every problem at once', (t) => {
  const refused = (query: { page?: unknown; limit?: unknown }) => {
    const result = parsePageRequest(query);
    return result.ok ? null : result.details;
  };
  t.deepEqual(refused({ page: '0' }), [PAGE]);
  t.deepEqual(refused({ page: '-1' }), [PAGE]);
  t.deepEqual(refused({ limit: '0' }), [LIMIT]);
  t.deepEqual(refused({ limit: '101' }), [LIMIT]);
  for (const bad of ['1.5', '1e2', ' 2', '2 ', 'two', '0x10', ['2'], {}, true]) t.deepEqual(refused({ limit: bad }), [LIMIT], JSON.stringify(bad));
  t.deepEqual(refused({ page: String(Number.MAX_SAFE_INTEGER + 2), limit: '1000' }), [PAGE, LIMIT]);
});

test('pageOf counts the pages; offsetOf skips the pages before', (t) => {
  t.deepEqual(pageOf(['a'], { page: 2, limit: 20 }, 41), { items: ['a'], page: 2, limit: 20, total: 41, totalPages: 3 });
  t.is(pageOf([], { page: 1, limit: 20 }, 40).totalPages, 2);
  t.is(pageOf([], { page: 1, limit: 20 }, 0).totalPages, 0);
  t.is(offsetOf({ page: 1, limit: 20 }), 0);
  t.is(offsetOf({ page: 3, limit: 20 }), 40);
});
