import test from 'ava';
import { loadConfig } from '../../bootstrap/config.ts';
import { engineSlots, type EngineConfig } from '../../bootstrap/config/engine.ts';

// The engine section's limits, written out here (not read from bootstrap/config/engine.ts): each variable's lowest
// and highest accepted value, the field it sets, and that one step past either end is a start-up problem naming it.

const BASE = { APP_ENV: 'local', DATA_DIR: '/tmp/engine-config', JWT_SECRET: 'x'.repeat(32) };
const COMFY = { ...BASE, ENGINE_DRIVER: 'comfyui', COMFYUI_URLS: 'http://gpu-a:8188,http://gpu-b:8188' };

const load = (env: Record<string, string>) => loadConfig(env, { persistLocalSecret: false });

const engineOf = (env: Record<string, string>): EngineConfig => {
  const result = load(env);
  if (!result.ok) throw new Error(`unexpected problems: ${result.problems.join('; ')}`);
  return result.config.engine;
};

const LIMITS: { name: string; field: string; min: number; max: number; env: Record<string, string> }[] = [
  { name: 'COMFYUI_TIMEOUT_MS', field: 'timeoutMs', min: 100, max: 3_600_000, env: COMFY },
  { name: 'COMFYUI_JOBS_PER_SERVER', field: 'jobsPerServer', min: 1, max: 64, env: COMFY },
  { name: 'COMFYUI_WAIT_MS', field: 'unavailableWaitMs', min: 0, max: 3_600_000, env: COMFY },
  { name: 'COMFYUI_FAILOVER_MS', field: 'failoverMs', min: 100, max: 3_600_000, env: COMFY },
  { name: 'COMFYUI_PROBE_MS', field: 'probeMs', min: 100, max: 600_000, env: COMFY },
  { name: 'COMFYUI_CATALOG_REFRESH_MS', field: 'catalogueRefreshMs', min: 0, max: 86_400_000, env: COMFY },
  { name: 'COMFYUI_AFFINITY_WAIT_MS', field: 'affinityWaitMs', min: 0, max: 3_600_000, env: COMFY },
  { name: 'COMFYUI_DISPATCH_LOOKAHEAD', field: 'lookahead', min: 0, max: 64, env: COMFY },
  { name: 'ENGINE_MEMORY_MB', field: 'memoryMb', min: 64, max: 65_536, env: BASE },
];

for (const { name, field, min, max, env } of LIMITS) {
  test(`${name} takes ${min} to ${max} into engine.${field}, and refuses one past either end`, (t) => {
    t.is((engineOf({ ...env, [name]: String(min) }) as unknown as Record<string, number>)[field], min);
    t.is((engineOf({ ...env, [name]: String(max) }) as unknown as Record<string, number>)[field], max);
    for (const past of [min - 1, max + 1]) {
      const result = load({ ...env, [name]: String(past) });
      t.false(result.ok, `${name}=${past} accepted`);
      if (!result.ok) t.deepEqual(result.problems, [`${name} must be an integer from ${min} to ${max} (got "${past}")`]);
    }
  });
}

test('COMFYUI_URLS and COMFYUI_URL may both be set when they agree; without COMFYUI_TOKEN the engine carries no token', (t) => {
  const engine = engineOf({ ...COMFY, COMFYUI_URL: 'http://gpu-a:8188, http://gpu-b:8188' });
  t.like(engine, { urls: ['http://gpu-a:8188', 'http://gpu-b:8188'] });
  t.false('token' in engine, 'no token key at all, so no Authorization header is sent');
  t.false('token' in engineOf({ ...COMFY, COMFYUI_TOKEN: '' }), 'an empty token is none');
});

test('one worker holds at most 64 ComfyUI slots: servers × COMFYUI_JOBS_PER_SERVER, capped', (t) => {
  const urls = Array.from({ length: 9 }, (_, n) => `http://gpu-${n}:8188`).join(',');
  t.is(engineSlots(engineOf({ ...COMFY, COMFYUI_URLS: urls, COMFYUI_JOBS_PER_SERVER: '7' })), 63);
  t.is(engineSlots(engineOf({ ...COMFY, COMFYUI_URLS: urls, COMFYUI_JOBS_PER_SERVER: '8' })), 64);
  t.is(engineSlots(engineOf({ ...COMFY, COMFYUI_JOBS_PER_SERVER: '3' })), 6);
  t.is(engineSlots(engineOf(BASE)), 1, 'the builtin engine runs one job at a time');
});
