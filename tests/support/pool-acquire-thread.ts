import { parentPort, workerData } from 'node:worker_threads';
import type { ComfyClient } from '../../adapters/comfyui/comfy-client.ts';
import { ComfyPool, type ComfyLease } from '../../adapters/comfyui/comfy-pool.ts';

// Run in a worker thread by tests/unit/comfy-pool-yields.test.ts: a pool of one fake server, one slot, and a job that
// asks for it (`free`), or that asks while another job holds it and gets it when that job lets go (`freed`). Posts
// 'acquired' when the job has its slot. A pool that loops on settled promises without awaiting a timer never posts,
// and nothing in this thread could stop it: the test's timer runs in its own thread.
const client = {
  name: 'one',
  label: 'one',
  systemStats: async () => ({ devices: [], system: {} }),
  objectInfo: async () => ({}),
  queue: async () => ({ running: [], pending: [] }),
} as unknown as ComfyClient;
const pool = new ComfyPool([client], { jobsPerServer: 1, unavailableWaitMs: 1000, pollMs: 10 });
const { scenario } = workerData as { scenario: 'free' | 'freed' };
if (scenario === 'freed') {
  const holder = (await pool.acquire(undefined, undefined, 'u1')) as ComfyLease;
  setTimeout(() => holder.release(), 50);
}
const lease = await pool.acquire(undefined, undefined, 'u2');
parentPort!.postMessage(lease !== null && typeof lease === 'object' && 'release' in lease ? 'acquired' : 'no slot');
