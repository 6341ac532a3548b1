import type { Mutation } from '../mutation.ts';

export const MUTATIONS: Mutation[] = [
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
    name: 'reconciler skips owed refunds',
    file: 'core/use-cases/generation/reconcile-jobs.use-case.ts',
    find: 'for (const owed of await jobs.listUnrefunded(max)) {',
    replace: 'for (const owed of [] as Awaited<ReturnType<typeof jobs.listUnrefunded>>) {',
    tests: ['tests/unit/reconcile-jobs.test.ts'],
  },
];
