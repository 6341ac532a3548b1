import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { JobStatus } from '../../core/domain/job.ts';
import type { StagedOutput, StagedOutputs } from '../../core/ports/staged-outputs.port.ts';
import type { Repositories } from '../support/backends.ts';
import { addUser, at, era, historyItem, newJob, sharedBackend, type MakeBackend } from './fixtures.ts';

const keys = (entries: StagedOutput[]) => entries.map((entry) => entry.storageKey);

/** Registers the StagedOutputs contract for one backend; `make()` returns a fresh, empty backend. */
export function stagedOutputsContract(name: string, make: MakeBackend): void {
  const backend = sharedBackend(make);
  let repos: Repositories;
  let staged: StagedOutputs;
  test.before(async () => {
    ({ repos } = await backend());
    staged = repos.staged;
  });

  const entry = (jobId: string, runId: string, createdAt = at(0)): StagedOutput => ({
    storageKey: `outputs/u/${jobId}/${runId.slice(0, 8)}-${randomUUID()}.png`,
    jobId,
    runId,
    createdAt,
  });

  /** A job of a new user in `status`, held by `runId` when that is given (moved to running, then on to `status`). */
  const job = async (status: JobStatus, runId: string | null): Promise<{ jobId: string; userId: string }> => {
    const userId = await addUser(repos.users);
    const created = newJob(userId);
    await repos.jobs.create(created);
    if (runId !== null) {
      if (!(await repos.jobs.transition(created.id, { to: 'running', runId }, at(1)))) throw new Error('not running');
    }
    if (status !== 'queued' && status !== 'running') {
      if (!(await repos.jobs.transition(created.id, { to: status }, at(2)))) throw new Error(`not ${status}`);
    }
    return { jobId: created.id, userId };
  };

  test(`${name}: add is idempotent per storage key; listForRun lists that run's entries`, async (t) => {
    const jobId = randomUUID();
    const runId = randomUUID();
    const first = entry(jobId, runId, at(5));
    const second = entry(jobId, runId, at(6));
    await staged.add(first);
    await staged.add(second);
    await staged.add({ ...first, runId: randomUUID(), createdAt: at(7) });
    await staged.add(first);
    t.deepEqual([...(await staged.listForRun(runId))].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime()), [first, second]);
    await staged.add(entry(jobId, randomUUID()));
    t.is((await staged.listForRun(runId)).length, 2, 'another run of the job is not this one');
    t.deepEqual(await staged.listForRun(randomUUID()), []);
  });

  // Pins: only a duplicate key counts as already staged. A row the database refuses for another reason fails the add,
  // on SQLite too, whose Sequelize dialect reports a NOT NULL failure as a unique one. (The in-memory store has no
  // columns to refuse a value.)
  if (name !== 'memory') {
    test(`${name}: an add the database refuses for another reason than a duplicate fails`, async (t) => {
      const refused = { ...entry(randomUUID(), randomUUID()), jobId: null as unknown as string };
      await t.throwsAsync(staged.add(refused));
      t.deepEqual(await staged.listForRun(refused.runId), []);
    });
  }

  test(`${name}: remove deletes the named keys only; unknown keys and an empty list are harmless`, async (t) => {
    const runId = randomUUID();
    const jobId = randomUUID();
    const [a, b, c] = [entry(jobId, runId, at(1)), entry(jobId, runId, at(2)), entry(jobId, runId, at(3))];
    for (const e of [a!, b!, c!]) await staged.add(e);
    await staged.remove([a!.storageKey, c!.storageKey, 'outputs/never/staged.png']);
    t.deepEqual(await staged.listForRun(runId), [b]);
    await staged.remove([]);
    t.deepEqual(await staged.listForRun(runId), [b]);
    await staged.add(a!);
    t.is((await staged.listForRun(runId)).length, 2, 'a removed key can be staged again');
  });

  test(`${name}: listOrphaned lists files no attempt can commit any more, older than the cut-off, oldest first`, async (t) => {
    const time = era(4);
    const r = () => randomUUID();
    const orphans: StagedOutput[] = [];
    const kept: StagedOutput[] = [];
    const stage = async (e: StagedOutput, orphan: boolean) => {
      await staged.add(e);
      (orphan ? orphans : kept).push(e);
      return e;
    };
    // Its job finished (each way), whatever attempt staged it.
    for (const [i, status] of (['succeeded', 'failed', 'cancelled'] as const).entries()) {
      const runId = r();
      const { jobId } = await job(status, runId);
      await stage(entry(jobId, runId, time(10 + i)), true);
    }
    const cancelledEarly = await job('cancelled', null);
    await stage(entry(cancelledEarly.jobId, r(), time(13)), true);
    // Its job is gone (or never was).
    await stage(entry(r(), r(), time(14)), true);
    // Its job runs under another attempt.
    const taken = await job('running', r());
    await stage(entry(taken.jobId, r(), time(15)), true);
    // The attempt still holds its running job: it may yet commit the file.
    const live = r();
    const held = await job('running', live);
    await stage(entry(held.jobId, live, time(16)), false);
    // A history row points at it: it is a delivered file, not an orphan.
    const doneRun = r();
    const done = await job('succeeded', doneRun);
    const delivered = await stage(entry(done.jobId, doneRun, time(17)), false);
    await repos.history.add({ ...historyItem(done.userId, done.jobId), storageKey: delivered.storageKey });
    // Too young: an attempt may be about to write its job's state.
    await stage(entry(r(), r(), time(1000)), false);

    const cutoff = time(100);
    t.deepEqual(keys(await staged.listOrphaned(cutoff, 100)), keys(orphans));
    t.deepEqual((await staged.listOrphaned(cutoff, 100))[0], orphans[0]);
    t.deepEqual(keys(await staged.listOrphaned(cutoff, 2)), keys(orphans.slice(0, 2)));
    t.deepEqual(keys(await staged.listOrphaned(cutoff, 0)), keys(orphans.slice(0, 1)), 'a max below one reads one, as every batch read does');
    t.deepEqual(await staged.listOrphaned(time(0), 100), []);
    t.is(kept.length, 3);
  });

  test(`${name}: a staged file stops being an orphan candidate once removed in the history's transaction`, async (t) => {
    const time = era(5);
    const runId = randomUUID();
    const { jobId, userId } = await job('running', runId);
    const file = entry(jobId, runId, time(1));
    await staged.add(file);
    // Other tests' orphans are older than this cut-off too: look at this file only.
    const orphaned = async () => (await staged.listOrphaned(time(10), 100_000)).filter((e) => e.storageKey === file.storageKey);
    await repos.jobs.transition(jobId, { to: 'running', runId: randomUUID() }, at(3)); // taken over: the file is orphaned
    t.deepEqual(await orphaned(), [file]);
    // Rolled back: still staged, still an orphan.
    const { uow } = await backend();
    await t.throwsAsync(
      uow.run(async (tx) => {
        await tx.history.add({ ...historyItem(userId, jobId), storageKey: file.storageKey });
        await tx.staged.remove([file.storageKey]);
        throw new Error('rolled back');
      }),
    );
    t.deepEqual(await orphaned(), [file]);
    await uow.run(async (tx) => {
      await tx.history.add({ ...historyItem(userId, jobId), storageKey: file.storageKey });
      await tx.staged.remove([file.storageKey]);
    });
    t.deepEqual(await orphaned(), []);
    t.deepEqual(await staged.listForRun(runId), []);
  });
}
