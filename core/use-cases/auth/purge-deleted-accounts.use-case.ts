import type { HistoryRepository } from '../../ports/history-repository.port.ts';
import type { Logger } from '../../ports/logger.port.ts';
import type { ObjectStorage } from '../../ports/object-storage.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import type { UploadRepository } from '../../ports/upload-repository.port.ts';
import type { UserRepository } from '../../ports/user-repository.port.ts';
import type { JobLifecycle } from '../generation/job-lifecycle.service.ts';
import { cancelActiveJobs } from './delete-account.use-case.ts';

export interface PurgeDeletedAccountsDeps {
  users: UserRepository;
  history: HistoryRepository;
  uploads: UploadRepository;
  storage: ObjectStorage;
  uow: UnitOfWork;
  lifecycle: JobLifecycle;
  logger: Logger;
  requestCancel(jobId: string): Promise<void>;
}

const BATCH = 100;

/**
 * Finishes deleted accounts (ADR 063): deletes each one's outputs and uploads, file first then row (as the retention
 * sweeps do), then the account's row, which takes its logins, ledger, jobs and connections with it. The row goes only
 * once no output, upload or unfinished job of it is left (`UserRepository.purge`), so a purge that fails part-way, or
 * a job submitted as the account was deleted, leaves the account for the next sweep rather than a file nobody can
 * find. Files an attempt was still uploading are staged, and the orphan sweep deletes them once their job is gone.
 */
export class PurgeDeletedAccounts {
  private readonly running = new Map<string, Promise<boolean>>();

  constructor(private readonly deps: PurgeDeletedAccountsDeps) {}

  /** The sweep: purges up to `max` deleted accounts; how many were finished. One that fails is logged and retried next time. */
  async execute(max = 20): Promise<number> {
    let finished = 0;
    for (const userId of await this.deps.users.listDeleted(max)) if (await this.purge(userId)) finished += 1;
    return finished;
  }

  /**
   * Purges one deleted account; true when its row is gone. A live account is left alone (its jobs and files are not
   * touched). One purge per account at a time in this process.
   */
  purge(userId: string): Promise<boolean> {
    const running = this.running.get(userId);
    if (running) return running;
    const purge = this.purgeOnce(userId)
      .catch((error: unknown) => {
        this.deps.logger.warn('deleted account not purged yet; the next sweep retries', { userId, error: String(error) });
        return false;
      })
      .finally(() => this.running.delete(userId));
    this.running.set(userId, purge);
    return purge;
  }

  private async purgeOnce(userId: string): Promise<boolean> {
    const { users, history, uploads, storage, uow, lifecycle, logger } = this.deps;
    // Only a husk: `findById` finds live accounts only, and a live one's jobs and files are its own.
    if (await users.findById(userId)) {
      logger.warn('a live account is not purged', { userId });
      return false;
    }
    // A job that committed as the account was deleted (another process's submit) is cancelled here.
    const late = await uow.run((tx) => cancelActiveJobs(tx, lifecycle, userId));
    for (const jobId of late) await this.deps.requestCancel(jobId).catch(() => undefined);
    const outputs = await drain(
      // Every output, a test run's too (an administrator's account): the history page leaves those out.
      () => history.listAllForUser(userId, BATCH),
      async (item) => {
        await storage.delete(item.storageKey);
        await history.delete(item.id);
      },
    );
    const inputs = await drain(
      () => uploads.listForUser(userId, BATCH),
      async (upload) => {
        await storage.delete(upload.storageKey);
        await uploads.delete(upload.id);
      },
    );
    const files = outputs + inputs;
    const purged = await users.purge(userId);
    if (purged) logger.info('deleted account purged', { userId, files });
    else logger.warn('deleted account still holds outputs, uploads or jobs; the next sweep retries', { userId });
    return purged;
  }
}

/**
 * Removes what `list` lists, file first then row, batch after batch until it lists nothing; how many went. A row listed
 * again after its removal means the removal did not take: it throws rather than loop.
 */
async function drain<T extends { id: string }>(list: () => Promise<T[]>, remove: (row: T) => Promise<void>): Promise<number> {
  const removed = new Set<string>();
  for (let batch = await list(); batch.length > 0; batch = await list()) {
    for (const row of batch) {
      if (removed.has(row.id)) throw new Error(`row ${row.id} is still listed after its removal`);
      await remove(row);
      removed.add(row.id);
    }
  }
  return removed.size;
}
