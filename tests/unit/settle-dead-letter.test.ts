import test from 'ava';
import type { Logger } from '../../core/ports/logger.port.ts';
import type { MessageQueue, PeekedMessage } from '../../core/ports/queue.port.ts';
import type { UnitOfWork } from '../../core/ports/unit-of-work.port.ts';
import { SettleDeadLetter } from '../../core/use-cases/admin/settle-dead-letter.use-case.ts';

// An administrator's redrive or discard of a dead letter: what the queue is asked, and the audit entry that traces it.

const ADMIN = 'a0000000-0000-4000-8000-000000000001';
const USER = 'B0000000-0000-4000-8000-00000000000B';
const JOB = 'c0000000-0000-4000-8000-00000000000c';
const NOW = new Date('2030-01-01T00:00:00Z');

const letter = (id: string, body: unknown, taskType = 'generation'): PeekedMessage =>
  ({ id, body, attributes: { TaskType: taskType, Environment: 'test' }, reason: 'gave up' }) as PeekedMessage;

const setup = (letters: PeekedMessage[], options: { auditFails?: boolean; unlisted?: string[] } = {}) => {
  const asked: [string, string][] = [];
  const held = new Set([...letters.map((l) => l.id), ...(options.unlisted ?? [])]);
  const settle = (action: string) => async (id: string) => (asked.push([action, id]), held.delete(id));
  const queue = { deadLetters: async (max: number) => letters.slice(0, max), redrive: settle('redrive'), discard: settle('discard') } as unknown as MessageQueue;
  const audit: unknown[] = [];
  const uow = {
    run: async (work: (tx: unknown) => Promise<unknown>) =>
      work({
        audit: {
          record: async (entry: unknown) => {
            if (options.auditFails) throw new Error('database down');
            audit.push(entry);
          },
        },
      }),
  } as unknown as UnitOfWork;
  const errors: [string, Record<string, unknown> | undefined][] = [];
  const logger = { debug() {}, info() {}, warn() {}, error: (message: string, fields?: Record<string, unknown>) => void errors.push([message, fields]) } as unknown as Logger;
  let n = 0;
  const useCase = new SettleDeadLetter({ queue, uow, ids: { newId: () => `audit-${++n}` }, clock: { now: () => NOW }, logger });
  return { asked, audit, errors, useCase };
};

test('a redrive and a discard are asked of the queue and audited with what the dead letter was about', async (t) => {
  const { asked, audit, useCase } = setup([letter('m1', { jobId: JOB, userId: USER }), letter('m2', { userId: 'not-a-uuid' }, 'publish')]);
  t.deepEqual(await useCase.execute({ actorId: ADMIN, id: 'm1', action: 'redrive' }), { ok: true, value: { id: 'm1' } });
  t.deepEqual(await useCase.execute({ actorId: ADMIN, id: 'm2', action: 'discard' }), { ok: true, value: { id: 'm2' } });
  t.deepEqual(asked, [['redrive', 'm1'], ['discard', 'm2']]);
  t.deepEqual(audit, [
    {
      id: 'audit-1',
      actorId: ADMIN,
      action: 'queue.redrive',
      targetUserId: USER.toLowerCase(),
      details: { messageId: 'm1', taskType: 'generation', jobId: JOB, userId: USER, reason: 'gave up' },
      createdAt: NOW,
    },
    {
      id: 'audit-2',
      actorId: ADMIN,
      action: 'queue.discard',
      targetUserId: null,
      details: { messageId: 'm2', taskType: 'publish', jobId: null, userId: 'not-a-uuid', reason: 'gave up' },
      createdAt: NOW,
    },
  ]);
});

// Pins: an id no dead letter can have (empty, over 128 characters) is 404 without asking the queue; one the queue does
// not hold is 404 and audits nothing; one settled past the looked-at window is audited with what is known (its id).
test('unknown, impossible and unseen ids', async (t) => {
  const { asked, audit, useCase } = setup([letter('m1', { jobId: JOB })]);
  for (const id of ['', 'x'.repeat(129)]) t.like(await useCase.execute({ actorId: ADMIN, id, action: 'discard' }), { ok: false, code: 'NOT_FOUND' });
  t.deepEqual(asked, [], 'the queue is not asked about an id no dead letter can have');
  t.like(await useCase.execute({ actorId: ADMIN, id: 'gone', action: 'redrive' }), { ok: false, code: 'NOT_FOUND' });
  t.deepEqual(audit, []);
  t.true((await useCase.execute({ actorId: ADMIN, id: 'x'.repeat(128), action: 'redrive' })).ok === false, 'a 128-character id is asked about');
  t.deepEqual(asked.at(-1), ['redrive', 'x'.repeat(128)]);

  const unseen = setup([], { unlisted: ['m9'] });
  t.true((await unseen.useCase.execute({ actorId: ADMIN, id: 'm9', action: 'discard' })).ok);
  t.like(unseen.audit[0], { action: 'queue.discard', targetUserId: null, details: { messageId: 'm9', taskType: null, jobId: null, userId: null, reason: null } });
});

test('an audit entry that cannot be written goes to the error log whole, and the caller hears of the failure', async (t) => {
  const { errors, useCase } = setup([letter('m1', { jobId: JOB, userId: USER })], { auditFails: true });
  await t.throwsAsync(useCase.execute({ actorId: ADMIN, id: 'm1', action: 'discard' }), { message: 'database down' });
  t.is(errors.length, 1);
  t.is(errors[0]![0], 'dead letter settled but its audit entry was not written');
  t.like(errors[0]![1], { actorId: ADMIN, action: 'queue.discard', createdAt: NOW.toISOString(), error: 'Error: database down', details: { messageId: 'm1', jobId: JOB } });
});
