import test from 'ava';
import { loadConfig } from '../../bootstrap/config.ts';
import { runCommand } from '../support/run-command.ts';

const base = { APP_ENV: 'local', DATA_DIR: '/tmp/mgs-trust-proxy', JWT_SECRET: 'test-secret-that-is-long-enough-for-hs256-000' };
const trustProxyOf = (value: string | undefined) => {
  const loaded = loadConfig({ ...base, ...(value === undefined ? {} : { TRUST_PROXY: value }) }, { persistLocalSecret: false });
  return loaded.ok ? { ok: true, value: loaded.config.network.trustProxy } : { ok: false, problems: loaded.problems };
};

test('TRUST_PROXY takes what Express takes: booleans, a hop count, addresses, CIDRs and the named ranges; default loopback', (t) => {
  const accepted: [string | undefined, boolean | number | string][] = [
    [undefined, 'loopback'],
    ['true', true],
    ['FALSE', false],
    ['0', 0],
    ['2', 2],
    ['10.0.0.0/8', '10.0.0.0/8'],
    ['10.1.2.3, 192.168.0.0/16', '10.1.2.3, 192.168.0.0/16'],
    ['loopback,linklocal,uniquelocal', 'loopback,linklocal,uniquelocal'],
    ['fd00::/8', 'fd00::/8'],
    ['10.0.0.0/255.0.0.0', '10.0.0.0/255.0.0.0'],
  ];
  for (const [raw, value] of accepted) t.deepEqual(trustProxyOf(raw), { ok: true, value }, String(raw));
});

test('a TRUST_PROXY Express would refuse is a configuration problem naming the variable', (t) => {
  for (const raw of ['yes', '10.0.0.0/33', 'loopback,proxy.example.com', '300.1.1.1', '-1']) {
    const result = trustProxyOf(raw);
    t.false(result.ok, raw);
    t.true((result.problems ?? []).some((problem) => problem.startsWith('TRUST_PROXY must be')), `${raw}: ${JSON.stringify(result.problems)}`);
  }
});

test('the service refuses to start with a bad TRUST_PROXY: exit 78 and the problem on stderr', async (t) => {
  const run = await runCommand('node', ['--import', 'tsx', 'bootstrap/main.ts'], { ...base, TRUST_PROXY: '10.0.0.0/33' }, { timeoutMs: 60_000 });
  t.is(run.code, 78, run.stderr);
  t.regex(run.stderr, /TRUST_PROXY must be true, false, a hop count/);
});
