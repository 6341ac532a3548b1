import test from 'ava';
import { BuiltinFleet } from '../../adapters/builtin-engine/builtin-fleet.ts';

// The builtin engine's fleet: one server, healthy exactly when the engine's check passes.

const base = { server: 1, name: 'builtin', running: null, waiting: null, version: null, devices: [], models: {} };

test('a passing check is one healthy server named builtin', async (t) => {
  t.deepEqual(await new BuiltinFleet({ check: async () => {} }).servers(), [{ ...base, healthy: true, error: null }]);
});

test('a failing check is one unhealthy server with the error message', async (t) => {
  const fleet = new BuiltinFleet({
    check: async () => {
      throw new Error('EACCES: permission denied, mkdir /data/engine');
    },
  });
  t.deepEqual(await fleet.servers(), [{ ...base, healthy: false, error: 'EACCES: permission denied, mkdir /data/engine' }]);
});

test('a check that throws something other than an Error still reports it', async (t) => {
  const throwing = (value: unknown) =>
    new BuiltinFleet({
      check: async () => {
        throw value;
      },
    }).servers();
  t.deepEqual(await throwing('disk gone'), [{ ...base, healthy: false, error: 'disk gone' }]);
  t.deepEqual(await throwing(null), [{ ...base, healthy: false, error: 'null' }]);
  t.deepEqual(await throwing(undefined), [{ ...base, healthy: false, error: 'undefined' }]);
});
