import test from 'ava';
import { sqlIn } from '../../adapters/sequelize/sql-scope.ts';

test('sqlIn pads a list to the next power of two with its last value, so a statement comes in few shapes', (t) => {
  t.deepEqual(sqlIn(['a']), { sql: 'IN (?)', params: ['a'] });
  t.deepEqual(sqlIn(['a', 'b']), { sql: 'IN (?, ?)', params: ['a', 'b'] });
  t.deepEqual(sqlIn(['a', 'b', 'c']), { sql: 'IN (?, ?, ?, ?)', params: ['a', 'b', 'c', 'c'] });
  t.deepEqual(
    [1, 4, 5, 8, 9, 16, 17, 100].map((n) => sqlIn(Array.from({ length: n }, (_, i) => i)).params.length),
    [1, 4, 8, 8, 16, 16, 32, 128],
  );
  const shapes = new Set(Array.from({ length: 100 }, (_, i) => sqlIn(Array.from({ length: i + 1 }, () => 'x')).sql));
  t.is(shapes.size, 8);
  t.throws(() => sqlIn([]), { message: /at least one/ });
});
