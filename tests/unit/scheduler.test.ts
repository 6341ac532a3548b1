import test from 'ava';
import { Scheduler } from '../../bootstrap/scheduler.ts';
import { quietLogger } from '../support/generation-harness.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('runs each task of the process roles right after start and then every interval; others never', async (t) => {
  const scheduler = new Scheduler(['worker'], quietLogger);
  const runs: string[] = [];
  scheduler.add({ name: 'worker-task', roles: ['worker'], everyMs: 30, run: async () => void runs.push('worker-task') });
  scheduler.add({ name: 'api-task', roles: ['api'], everyMs: 30, run: async () => void runs.push('api-task') });
  await scheduler.start();
  await sleep(100);
  await scheduler.stop();
  const count = runs.filter((name) => name === 'worker-task').length;
  t.true(count >= 2 && count <= 5, `${count} runs in 100 ms at a 30 ms interval`);
  t.false(runs.includes('api-task'), 'a task of a role this process does not have never runs');
});

test('a task never runs twice at once, a failure is logged and the next tick runs again, stop() waits for the run in flight', async (t) => {
  const errors: string[] = [];
  const logger = { ...quietLogger, error: (message: string) => void errors.push(message) };
  const scheduler = new Scheduler(['api'], logger);
  let running = 0;
  let most = 0;
  let runs = 0;
  scheduler.add({
    name: 'slow',
    roles: ['api'],
    everyMs: 5,
    run: async () => {
      running += 1;
      runs += 1;
      most = Math.max(most, running);
      await sleep(30);
      running -= 1;
      if (runs === 1) throw new Error('first run fails');
    },
  });
  await scheduler.start();
  t.throws(() => scheduler.add({ name: 'late', roles: ['api'], everyMs: 5, run: async () => undefined }), { message: /after start/ }, 'tasks are added before start');
  await sleep(100);
  await scheduler.stop();
  t.is(running, 0, 'stop() returned after the run in flight');
  t.is(most, 1);
  t.true(runs >= 2, 'it ran again after the failure');
  t.deepEqual(errors.slice(0, 1), ['slow failed']);
});

test('runNow runs a task at once, after the run in flight', async (t) => {
  const scheduler = new Scheduler(['api'], quietLogger);
  let runs = 0;
  scheduler.add({ name: 'sweep', roles: ['api'], everyMs: 60_000, run: async () => void (runs += 1) });
  await scheduler.start();
  await scheduler.runNow('sweep');
  t.true(runs >= 1);
  await scheduler.stop();
});
