/**
 * The mutation check of the exactly-once guards: each mutation deletes one guard (a conditional update, a
 * fence, a refund, a state check...) in a scratch copy of the project, runs the tests that should catch it,
 * and reports whether they went red. Every mutation must be caught. Not part of `npm test` (it runs the
 * suites many times); run it with `npm run mutation` (optionally a name filter) and read the JSON lines.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

interface Edit {
  file: string;
  find: string;
  replace: string;
}

interface Mutation extends Edit {
  name: string;
  /** Further edits made together with the first (a guard defended twice is only gone when both are). */
  also?: Edit[];
  tests: string[];
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const MUTATIONS: Mutation[] = [
  {
    name: 'SQL job transition: no status guard',
    file: 'adapters/sequelize/sequelize-job-repository.ts',
    find: 'const where: WhereOptions<JobRow> = { id, status: { [Op.in]: sourcesOf(move.to) }, ',
    replace: 'const where: WhereOptions<JobRow> = { id, ',
    tests: ['tests/contract/job-repository.test.ts'],
  },
  {
    name: 'SQL job transition: no fence',
    file: 'adapters/sequelize/sequelize-job-repository.ts',
    find: "...(move.fence !== undefined ? { run_id: move.fence } : {}) };",
    replace: '};',
    tests: ['tests/contract/job-repository.test.ts', 'tests/integration/worker-defects.test.ts'],
  },
  {
    name: 'memory job transition: no status guard',
    file: 'adapters/memory/memory-job-repository.ts',
    find: 'if (!job || !sourcesOf(move.to).includes(job.status)) return false;',
    replace: 'if (!job) return false;',
    tests: ['tests/contract/job-repository.test.ts', 'tests/unit/generation.test.ts'],
  },
  {
    name: 'markRefunded: no once-only guard',
    file: 'adapters/sequelize/sequelize-job-repository.ts',
    find: 'const where: WhereOptions<JobRow> = { id, refunded_coins: 0 };',
    replace: 'const where: WhereOptions<JobRow> = { id };',
    tests: ['tests/contract/job-repository.test.ts'],
  },
  {
    name: 'a terminal move without its refund',
    file: 'core/use-cases/generation/job-lifecycle.ts',
    find: 'const refunded = await this.refund(tx, job, at);',
    replace: 'const refunded = 0;',
    tests: ['tests/unit/generation.test.ts', 'tests/integration/fault-injection.test.ts'],
  },
  {
    name: 'a failed refund credit does not undo the ending',
    file: 'core/use-cases/generation/job-lifecycle.ts',
    find: 'await creditRefund(tx, this.deps.ids, { userId: job.userId, amount: owed, relatedEntityId: job.id, at });',
    replace: 'await creditRefund(tx, this.deps.ids, { userId: job.userId, amount: owed, relatedEntityId: job.id, at }).catch(() => undefined);',
    tests: ['tests/integration/worker-defects.test.ts'],
  },
  {
    name: 'success not fenced by the attempt',
    file: 'core/use-cases/generation/job-lifecycle.ts',
    find: "if (!(await tx.jobs.transition(job.id, { to: 'succeeded', fence: runId, changes }, at))) return false;",
    replace: "if (!(await tx.jobs.transition(job.id, { to: 'succeeded', changes }, at))) return false;",
    tests: ['tests/integration/worker-defects.test.ts'],
  },
  {
    name: 'success without staged files released',
    file: 'core/use-cases/generation/job-lifecycle.ts',
    find: 'await tx.staged.remove(items.map((item) => item.storageKey));',
    replace: '',
    tests: ['tests/unit/generation.test.ts'],
  },
  {
    name: 'no staging before the upload',
    file: 'core/use-cases/generation/store-outputs.ts',
    find: 'for (const storageKey of keys) await tx.staged.add({ storageKey, jobId: job.id, runId, createdAt: stagedAt });',
    replace: '',
    tests: ['tests/integration/fault-injection.test.ts', 'tests/integration/worker-defects.test.ts'],
  },
  {
    name: 'a lost attempt keeps its uploaded files',
    file: 'core/use-cases/generation/store-outputs.ts',
    find: "    await this.discard(runId);\n    return 'lost';",
    replace: "    return 'lost';",
    tests: ['tests/integration/worker-defects.test.ts'],
  },
  {
    name: 'dead letters do not end their job',
    file: 'adapters/sequelize/sequelize-queue-consumer.ts',
    find: 'if (this.options.onDeadLetter && message) await this.options.onDeadLetter(message, settlement.reason);',
    replace: '',
    tests: ['tests/integration/exactly-once-defects.test.ts', 'tests/contract/message-queue.test.ts'],
  },
  {
    name: 'queue acks delete (no tombstone)',
    file: 'adapters/sequelize/sequelize-queue-consumer.ts',
    find: "changed = await this.write({ status: 'done', claim_token: null, updated_at: clock.now() }, where);",
    replace: 'changed = await this.deps.db.autocommit.write((scope) => queueMessageModel(scope.sequelize).destroy({ where, ...scope.options }));',
    tests: ['tests/integration/worker-defects.test.ts', 'tests/contract/message-queue.test.ts'],
  },
  {
    name: 'relays do not respect leases',
    file: 'adapters/sequelize/sequelize-outbox.ts',
    find: "{ where: { id: { [Op.in]: candidates.map((row) => row.id) }, ...free(now) }, ...s.options },",
    replace: "{ where: { id: { [Op.in]: candidates.map((row) => row.id) } }, ...s.options },",
    tests: ['tests/contract/outbox.test.ts', 'tests/integration/queue.test.ts'],
  },
  {
    name: 'a refused submit keeps the linked deduction',
    file: 'core/use-cases/generation/submit-generation.use-case.ts',
    find: '      await creditRefund(tx, this.deps.ids, { userId, amount: linked.amount, relatedEntityId: requestId, at: this.deps.clock.now() });',
    replace: '',
    tests: ['tests/unit/generation.test.ts', 'tests/integration/exactly-once-defects.test.ts'],
  },
  {
    name: 'a linked deduction above the price is kept',
    file: 'core/use-cases/generation/submit-generation.use-case.ts',
    find: 'if (linkedPaid > prepared.price) await creditRefund(tx, ids, { userId, amount: linkedPaid - prepared.price, relatedEntityId: jobId, at: now });',
    replace: '',
    tests: ['tests/unit/generation.test.ts'],
  },
  {
    name: 'raw workflows free for everyone',
    file: 'core/use-cases/generation/prepare-generation.ts',
    find: 'if (!this.deps.raw.roles.includes(request.role)) {\n      return validationFailed',
    replace: 'if (false) {\n      return validationFailed',
    tests: ['tests/unit/generation.test.ts'],
  },
  {
    name: 'memory unit of work does not roll back',
    file: 'adapters/memory/memory-store.ts',
    find: '        this.restore(before);',
    replace: '',
    tests: ['tests/contract/unit-of-work.test.ts', 'tests/unit/generation.test.ts'],
  },
  {
    name: 'sockets ignore session revocation',
    file: 'adapters/ws/ws-gateway.ts',
    find: "client.ws.close(WS_CLOSE.SESSION_REVOKED, 'session revoked');",
    replace: '',
    tests: ['tests/integration/exactly-once-defects.test.ts'],
  },
  {
    name: 'sockets outlive their access token',
    file: 'adapters/ws/ws-gateway.ts',
    find: "client.expiry = setTimeout(() => client.ws.close(WS_CLOSE.TOKEN_EXPIRED, 'access token expired'), Math.min(delay, 2 ** 31 - 1));",
    replace: 'client.expiry = setTimeout(() => undefined, Math.min(delay, 2 ** 31 - 1));',
    tests: ['tests/integration/exactly-once-defects.test.ts'],
  },
  {
    name: 'refresh rotation outside one transaction, revocation in one statement',
    file: 'core/use-cases/auth/refresh-session.use-case.ts',
    find: `    const issued = await uow.run(async (tx) => {
      // Two refreshes racing with one token: only the first wins; the second is treated as reuse.
      if (!(await tx.sessions.markRotated(session.id, now))) return 'reused';
      const user = await tx.users.findById(session.userId);`,
    replace: `    const tx = { sessions, users: (uow as unknown as { autocommit: { users: { findById(id: string): Promise<unknown> } } }).autocommit.users } as unknown as Parameters<Parameters<typeof uow.run>[0]>[0];
    const issued = await (async () => {
      if (!(await tx.sessions.markRotated(session.id, now))) return 'reused';
      const user = await tx.users.findById(session.userId);`,
    also: [
      { file: 'core/use-cases/auth/refresh-session.use-case.ts', find: `return user ? issueSession(this.deps, tx.sessions, user, session.familyId) : 'gone';
    });`, replace: `return user ? issueSession(this.deps, tx.sessions, user, session.familyId) : 'gone';
    })();` },
      {
        file: 'core/use-cases/auth/session-revocations.ts',
        find: '    // A rotation of this family that held one of its tokens while the first statement ran has committed by\n    // the time that statement returns; the second one catches the token that rotation issued.\n    await sessions.revokeFamily(familyId, clock.now());\n',
        replace: '',
      },
    ],
    tests: ['tests/integration/exactly-once-defects.test.ts'],
  },
  {
    name: 'reconciler skips stalled jobs',
    file: 'core/use-cases/generation/reconcile-jobs.use-case.ts',
    find: 'for (const stalled of await jobs.listStalled(stalledBefore, max)) {',
    replace: 'for (const stalled of [] as Awaited<ReturnType<typeof jobs.listStalled>>) {',
    tests: ['tests/unit/reconcile-jobs.test.ts'],
  },
  {
    name: 'reconciler skips owed refunds',
    file: 'core/use-cases/generation/reconcile-jobs.use-case.ts',
    find: 'for (const owed of await jobs.listUnrefunded(max)) {',
    replace: 'for (const owed of [] as Awaited<ReturnType<typeof jobs.listUnrefunded>>) {',
    tests: ['tests/unit/reconcile-jobs.test.ts'],
  },
  {
    name: 'retention sweep stops at the first failing delete',
    file: 'core/use-cases/generation/history.use-case.ts',
    find: "      } catch (error) {\n        this.deps.logger.warn('expired output not deleted; the next sweep retries'",
    replace: "      } catch (error) {\n        throw error;\n        this.deps.logger.warn('expired output not deleted; the next sweep retries'",
    tests: ['tests/integration/worker-defects.test.ts'],
  },
  {
    name: 'comfyui: a redelivered attempt does not name the attempt it supersedes',
    file: 'core/use-cases/generation/run-generation.use-case.ts',
    find: 'const supersedes = previousRunId ? { supersedes: previousRunId } : {};',
    replace: 'const supersedes = {};',
    tests: ['tests/integration/comfyui-redelivery.test.ts'],
  },
  {
    name: 'comfyui: a superseded prompt still queued or running is not adopted',
    file: 'adapters/comfyui/comfy-engine.ts',
    find: '        if (found) {\n          const foundId = String(found[1]);',
    replace: '        if (false as boolean) {\n          const foundId = String(found![1]);',
    tests: ['tests/integration/comfyui-engine-faults.test.ts'],
  },
  {
    name: 'comfyui: a failed superseded prompt is adopted',
    file: 'adapters/comfyui/comfy-engine.ts',
    find: "if (entry && entry.status?.status_str !== 'error') return",
    replace: 'if (entry) return',
    tests: ['tests/integration/comfyui-engine-faults.test.ts'],
  },
  {
    name: 'comfyui: a prompt the server lost is waited for forever',
    file: 'adapters/comfyui/prompt-watch.ts',
    find: '    if (queued) return null;',
    replace: '    if (queued || !queued) return null;',
    tests: ['tests/integration/comfyui-engine-faults.test.ts'],
  },
  {
    name: 'comfyui: a pending prompt is not removed on cancel',
    file: 'adapters/comfyui/prompt-watch.ts',
    find: '      await client.deletePending(promptId);',
    replace: '',
    tests: ['tests/integration/comfyui-engine-faults.test.ts'],
  },
  {
    name: 'comfyui: a bare interrupt',
    file: 'adapters/comfyui/comfy-client.ts',
    find: "await this.drain(await this.request('POST', '/interrupt', { prompt_id: promptId }));",
    replace: "await this.drain(await this.request('POST', '/interrupt', {}));",
    tests: ['tests/integration/comfyui-engine-faults.test.ts'],
  },
  {
    name: 'comfyui: no bound on the wait for a healthy server',
    file: 'adapters/comfyui/comfy-pool.ts',
    find: 'if (this.now() - unhealthySince >= this.options.unavailableWaitMs) return null;',
    replace: 'return null;',
    tests: ['tests/integration/comfyui-engine-faults.test.ts'],
  },
  {
    name: 'comfyui: the pool ignores COMFYUI_JOBS_PER_SERVER',
    file: 'adapters/comfyui/comfy-pool.ts',
    find: 'const free = this.servers.filter((s) => s.healthy === true && s.inFlight < this.options.jobsPerServer);',
    replace: 'const free = this.servers.filter((s) => s.healthy === true);',
    tests: ['tests/integration/comfyui-engine-faults.test.ts'],
  },
  {
    name: 'comfyui: the pool ignores queue length',
    file: 'adapters/comfyui/comfy-pool.ts',
    find: 'const score = lengths[i]! * 1000 + s.inFlight;',
    replace: 'const score = s.inFlight;',
    tests: ['tests/integration/comfyui-engine-faults.test.ts'],
  },
  {
    name: 'comfyui: a rejected prompt is transient',
    file: 'adapters/comfyui/comfy-engine.ts',
    find: '          transient: false,\n        };\n      }\n      const dropped',
    replace: '          transient: true,\n        };\n      }\n      const dropped',
    tests: ['tests/contract/workflow-engine.test.ts'],
  },
  {
    name: 'templates: the node catalogue is not asked on create',
    file: 'core/use-cases/templates/create-template.use-case.ts',
    find: 'const unknown = await unknownNodeTypes(this.deps.nodes, fields.workflow);',
    replace: 'const unknown = null;',
    tests: ['tests/unit/templates-use-cases.test.ts'],
  },
  // Issue 13: resource caps, the engine's budgets, per-user fairness, bounded errors.
  {
    name: 'submit: no resource caps',
    file: 'core/use-cases/generation/prepare-generation.ts',
    find: 'return problems.length > 0 ? validationFailed(',
    replace: 'return false && problems.length > 0 ? validationFailed(',
    tests: ['tests/unit/resource-limits.test.ts'],
  },
  {
    name: 'upload: no pixel check from the header',
    file: 'core/use-cases/uploads/store-upload.use-case.ts',
    find: 'if (pixels > maxImagePixels) {',
    replace: 'if (false) {',
    tests: ['tests/unit/uploads.test.ts'],
  },
  {
    name: 'upload: decode without limitInputPixels',
    file: 'adapters/sharp/sharp-image-inspector.ts',
    find: ", limitInputPixels: maxPixels };",
    replace: ' };',
    tests: ['tests/unit/uploads.test.ts'],
  },
  {
    name: 'engine: no time budget',
    file: 'adapters/builtin-engine/threaded-builtin-engine.ts',
    find: "if (message.type === 'started') timers.push(setTimeout(overTime, this.options.timeBudgetMs));",
    replace: "if (message.type === 'started') void overTime;",
    tests: ['tests/unit/engine-limits.test.ts'],
  },
  {
    name: 'engine: no memory budget',
    file: 'adapters/builtin-engine/engine-thread.ts',
    find: 'if (used <= memoryBytes) return null;',
    replace: 'return null;',
    tests: ['tests/unit/engine-limits.test.ts'],
  },
  {
    name: 'engine: no output size check',
    file: 'adapters/builtin-engine/builtin-engine.ts',
    find: 'if (max !== undefined && total > max) {',
    replace: 'if (false) {',
    tests: ['tests/unit/engine-limits.test.ts'],
  },
  {
    name: 'engine: EmptyImage allocates without checking the caps',
    file: 'adapters/builtin-engine/nodes/image-nodes.ts',
    find: "ensureImages(ctx.env, w, h, n);",
    replace: '',
    tests: ['tests/unit/engine-limits.test.ts'],
  },
  {
    name: 'job errors: not scrubbed or bounded',
    file: 'core/use-cases/generation/job-lifecycle.ts',
    find: 'message: clientErrorText(given.error.message) }',
    replace: 'message: given.error.message }',
    tests: ['tests/unit/error-text.test.ts'],
  },
  {
    name: 'job store: error not cut to its column',
    file: 'adapters/sequelize/sequelize-job-repository.ts',
    find: 'while (Buffer.byteLength(stored) > TEXT_COLUMN_BYTES) {',
    replace: 'while (false) {',
    tests: ['tests/unit/error-text.test.ts'],
  },
  {
    name: 'queue: last_error not cut',
    file: 'adapters/sequelize/sequelize-queue-consumer.ts',
    find: 'last_error: settlement.reason.slice(0, 10_000)',
    replace: 'last_error: settlement.reason',
    tests: ['tests/contract/message-queue.test.ts'],
  },
  {
    name: 'storage-key errors retried as transient',
    file: 'core/use-cases/generation/run-generation.use-case.ts',
    find: 'if (error instanceof InvalidStorageKeyError) {',
    replace: 'if (false) {',
    tests: ['tests/unit/error-text.test.ts'],
  },
  {
    name: 'submit: no cap on active jobs per user',
    file: 'core/use-cases/generation/submit-generation.use-case.ts',
    find: "if ((await tx.jobs.countActiveForUserExclusively(userId)) >= this.deps.maxActiveJobsPerUser) throw new Rejected('busy');",
    replace: '',
    tests: ['tests/integration/fairness.test.ts'],
  },
  {
    name: 'MariaDB: active jobs counted without locking the user first',
    file: 'adapters/sequelize/sequelize-job-repository.ts',
    find: "if (this.scope.dialect === 'mysql') await selectRows(this.scope, 'SELECT id FROM users WHERE id = :userId FOR UPDATE', { userId });",
    replace: '',
    tests: ['tests/integration/fairness.test.ts'],
  },
  {
    name: 'database queue: FIFO instead of users in turn',
    file: 'adapters/sequelize/sequelize-queue-consumer.ts',
    find: 'ORDER BY fair_seq ASC, visible_at ASC',
    replace: 'ORDER BY visible_at ASC',
    tests: ['tests/integration/fairness.test.ts'],
  },
  {
    name: 'social: SQL publication transition without its state and attempt fence',
    file: 'adapters/sequelize/sequelize-publication-repository.ts',
    find: "{ where: { output_id: outputId, platform, attempt_id: attemptId, status: { [Op.in]: from } }, ...s.options }",
    replace: '{ where: { output_id: outputId, platform }, ...s.options }',
    tests: ['tests/contract/social-repositories.test.ts'],
  },
  {
    name: 'social: memory publication end without its state guard',
    file: 'adapters/memory/memory-publication-repository.ts',
    find: "    if (!found || found.attemptId !== attemptId || (found.status !== 'pending' && found.status !== 'uploading')) return false;\n    const result",
    replace: '    if (!found) return false;\n    const result',
    tests: ['tests/contract/social-repositories.test.ts'],
  },
  {
    name: 'social: SQL restart of a failed publication without its status condition (concurrent restarts all start)',
    file: 'adapters/sequelize/sequelize-publication-repository.ts',
    find: "{ where: { ...where, status: 'failed' }, ...s.options }",
    replace: '{ where, ...s.options }',
    tests: ['tests/contract/publication-repository.test.ts'],
  },
  {
    name: 'social: SQL request restarts a publication that is not failed',
    file: 'adapters/sequelize/sequelize-publication-repository.ts',
    find: "      if (current.status !== 'failed') return { started: false, publication: current };\n",
    replace: '',
    also: [{ file: 'adapters/sequelize/sequelize-publication-repository.ts', find: "{ where: { ...where, status: 'failed' }, ...s.options }", replace: '{ where, ...s.options }' }],
    tests: ['tests/contract/social-repositories.test.ts', 'tests/integration/social.test.ts'],
  },
  {
    name: 'social: SQL request reads the row back from the transaction snapshot',
    file: 'adapters/sequelize/sequelize-publication-repository.ts',
    find: "const lock = this.scope.dialect === 'mysql' && this.scope.inTransaction ? { lock: Transaction.LOCK.SHARE } : {};",
    replace: 'const lock = {};',
    tests: ['tests/contract/publication-repository.test.ts'],
  },
  {
    name: 'social: SQL publication transition without its attempt fence',
    file: 'adapters/sequelize/sequelize-publication-repository.ts',
    find: 'attempt_id: attemptId, status: { [Op.in]: from } }',
    replace: 'status: { [Op.in]: from } }',
    tests: ['tests/contract/social-repositories.test.ts'],
  },
  {
    name: 'social: SQL begin from any state',
    file: 'adapters/sequelize/sequelize-publication-repository.ts',
    find: "return this.transition(outputId, platform, attemptId, ACTIVE, { status: 'uploading'",
    replace: "return this.transition(outputId, platform, attemptId, [...ACTIVE, 'published', 'failed'], { status: 'uploading'",
    tests: ['tests/contract/social-repositories.test.ts', 'tests/contract/publication-repository.test.ts'],
  },
  {
    name: 'social: SQL remote ref saved outside the upload',
    file: 'adapters/sequelize/sequelize-publication-repository.ts',
    find: "attemptId, ['uploading'], { remote_ref",
    replace: "attemptId, [...ACTIVE, 'published', 'failed'], { remote_ref",
    tests: ['tests/contract/social-repositories.test.ts', 'tests/contract/publication-repository.test.ts'],
  },
  {
    name: 'social: memory request restarts any publication',
    file: 'adapters/memory/memory-publication-repository.ts',
    find: "if (existing && existing.status !== 'failed') return",
    replace: 'if (existing && (false as boolean)) return',
    tests: ['tests/contract/social-repositories.test.ts'],
  },
  {
    name: 'social: memory begin without its attempt and state guard',
    file: 'adapters/memory/memory-publication-repository.ts',
    find: "    if (!found || found.attemptId !== attemptId || (found.status !== 'pending' && found.status !== 'uploading')) return false;\n    this.publications.set(keyOf(outputId, platform), { ...found, status: 'uploading'",
    replace: "    if (!found) return false;\n    this.publications.set(keyOf(outputId, platform), { ...found, status: 'uploading'",
    tests: ['tests/contract/social-repositories.test.ts'],
  },
  {
    name: 'social: memory remote ref without its attempt and state guard',
    file: 'adapters/memory/memory-publication-repository.ts',
    find: "if (!found || found.attemptId !== attemptId || found.status !== 'uploading') return false;",
    replace: 'if (!found) return false;',
    tests: ['tests/contract/social-repositories.test.ts'],
  },
  {
    name: 'social: memory publications outlive their user',
    file: 'adapters/memory/memory-publication-repository.ts',
    find: 'return found && this.store.users.has(found.userId) ? found : undefined;',
    replace: 'return found;',
    tests: ['tests/contract/publication-repository.test.ts'],
  },
  {
    name: 'social: memory token refresh without its version check',
    file: 'adapters/memory/memory-social-connection-repository.ts',
    find: 'if (!found || found.version !== fromVersion) return false;',
    replace: 'if (!found) return false;',
    tests: ['tests/contract/social-repositories.test.ts', 'tests/contract/social-connection-repository.test.ts'],
  },
  {
    name: 'social: SQL connection removal without its row lock (two callers revoke the same tokens)',
    file: 'adapters/sequelize/sequelize-social-connection-repository.ts',
    find: "const lock = s.dialect === 'mysql';",
    replace: 'const lock = false;',
    tests: ['tests/contract/social-connection-repository.test.ts'],
  },
  {
    name: 'social: token refresh without its version check',
    file: 'adapters/sequelize/sequelize-social-connection-repository.ts',
    find: '{ where: { user_id: userId, platform, version: fromVersion }, ...s.options }',
    replace: '{ where: { user_id: userId, platform }, ...s.options }',
    tests: ['tests/contract/social-repositories.test.ts'],
  },
  {
    name: 'social: a publication end without its conditional write reports twice',
    file: 'core/use-cases/social/run-publication.use-case.ts',
    find: 'if (!(await tx.publications.end(target.outputId, target.platform, target.attemptId, bounded, clock.now()))) return false;',
    replace: 'await tx.publications.end(target.outputId, target.platform, target.attemptId, bounded, clock.now());',
    tests: ['tests/integration/publish-faults.test.ts'],
  },
  {
    name: 'social: the worker posts a message whose attempt ended',
    file: 'core/use-cases/social/run-publication.use-case.ts',
    find: "if (!publication || publication.attemptId !== target.attemptId || publication.status === 'published' || publication.status === 'failed') return { action: 'ack' };",
    replace: "if (!publication) return { action: 'ack' };",
    also: [{ file: 'core/use-cases/social/run-publication.use-case.ts', find: "if (!(await deps.publications.begin(target.outputId, target.platform, target.attemptId, deps.clock.now()))) return { action: 'ack' };", replace: 'await deps.publications.begin(target.outputId, target.platform, target.attemptId, deps.clock.now());' }],
    tests: ['tests/integration/publish-faults.test.ts'],
  },
  {
    name: 'social: YouTube starts a new session instead of resuming the saved one',
    file: 'adapters/social/youtube-platform.ts',
    find: 'let session = request.remoteRef ? (JSON.parse(request.remoteRef) as { session: string }).session : null;',
    replace: 'let session: string | null = null;',
    tests: ['tests/integration/publish-faults.test.ts'],
  },
  {
    name: 'social: TikTok inits again instead of asking about the saved post',
    file: 'adapters/social/tiktok-platform.ts',
    find: 'let ref = request.remoteRef ? (JSON.parse(request.remoteRef) as TikTokRef) : null;',
    replace: 'let ref: TikTokRef | null = null;',
    tests: ['tests/integration/publish-faults.test.ts'],
  },
  {
    name: 'social: the callback does not check the browser state',
    file: 'core/use-cases/social/connect-platform.use-case.ts',
    find: 'if (!state || state !== input.browserState)',
    replace: 'if (!state)',
    tests: ['tests/integration/social.test.ts'],
  },
  {
    name: 'social and OIDC: pending authorizations are not single-use',
    file: 'core/use-cases/single-use-states.ts',
    find: '    if (claim.count > 1) return null;\n',
    replace: '',
    tests: ['tests/integration/social.test.ts', 'tests/integration/oidc.test.ts'],
  },
  {
    name: 'social: publishing a platform that is not connected',
    file: 'core/use-cases/social/request-publication.use-case.ts',
    find: 'for (const platform of request.platforms) if (!connected.has(platform)) problems.push',
    replace: 'for (const platform of request.platforms) if (false as boolean) problems.push',
    tests: ['tests/integration/social.test.ts'],
  },
  {
    name: 'social: an expiring token is used as it is',
    file: 'core/use-cases/social/connection-tokens.ts',
    find: 'connection.expiresAt.getTime() - clock.now().getTime() > REFRESH_MARGIN_SECONDS * 1000',
    replace: 'true',
    tests: ['tests/integration/social.test.ts'],
  },
];

const filter = process.argv[2];
const chosen = MUTATIONS.filter((mutation) => !filter || mutation.name.includes(filter));
const scratch = mkdtempSync(path.join(tmpdir(), 'mgs-mutation-'));
const files = spawnSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
for (const file of files) cpSync(path.join(ROOT, file), path.join(scratch, file), { recursive: true });
symlinkSync(path.join(ROOT, 'node_modules'), path.join(scratch, 'node_modules'));

let survived = 0;
try {
  for (const mutation of chosen) {
    const originals = new Map<string, string>();
    for (const edit of [mutation, ...(mutation.also ?? [])]) {
      const target = path.join(scratch, edit.file);
      const original = originals.get(target) ?? readFileSync(target, 'utf8');
      originals.set(target, original);
      const current = readFileSync(target, 'utf8');
      if (!current.includes(edit.find)) throw new Error(`mutation "${mutation.name}": the guard text is no longer in ${edit.file}`);
      writeFileSync(target, current.replace(edit.find, edit.replace));
    }
    const started = Date.now();
    const run = spawnSync(path.join(scratch, 'node_modules/.bin/ava'), mutation.tests, {
      cwd: scratch,
      encoding: 'utf8',
      env: { ...process.env, PATH: `${path.join(scratch, 'node_modules/.bin')}:${process.env.PATH ?? ''}` },
      timeout: 600_000,
    });
    for (const [target, original] of originals) writeFileSync(target, original);
    if (process.env.MUTATION_VERBOSE) process.stdout.write(run.stdout + run.stderr);
    const failing = (run.stdout + run.stderr).split('\n').filter((line) => line.includes('✘')).map((line) => line.trim());
    const caught = run.status !== 0;
    if (!caught) survived += 1;
    process.stdout.write(`${JSON.stringify({ mutation: mutation.name, caught, seconds: Math.round((Date.now() - started) / 1000), red: failing.slice(0, 3) })}\n`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
process.stdout.write(`${JSON.stringify({ mutations: chosen.length, caught: chosen.length - survived, survived })}\n`);
process.exit(survived === 0 ? 0 : 1);
