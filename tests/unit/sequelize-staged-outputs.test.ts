import test from 'ava';
import { SequelizeStagedOutputs } from '../../adapters/sequelize/sequelize-staged-outputs.ts';
import type { SqlScope } from '../../adapters/sequelize/sql-scope.ts';

// Pins: only a duplicate counts as already staged; any other failure of the write fails the add, so the worker does
// not go on to write a file that no staged row lets the reconciler find. The failure is injected in the scope: the
// contract's databases cannot be made to refuse this insert for another reason (Sequelize's SQLite dialect reports
// every constraint, NOT NULL included, as a unique one).
test('an add whose write fails for another reason than a duplicate fails', async (t) => {
  const failing = { write: async () => Promise.reject(new Error('SQLITE_IOERR: disk I/O error')) } as unknown as SqlScope;
  const staged = new SequelizeStagedOutputs(failing);
  await t.throwsAsync(staged.add({ storageKey: 'outputs/u/j/r.png', jobId: '00000000-0000-4000-8000-000000000001', runId: 'r', createdAt: new Date() }), {
    message: 'SQLITE_IOERR: disk I/O error',
  });
});
