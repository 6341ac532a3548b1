import test from 'ava';
import type { JobRepository } from '../../core/ports/job-repository.port.ts';
import type { UserRepository } from '../../core/ports/user-repository.port.ts';
import type { WebhookDeliveryRepository } from '../../core/ports/webhook-delivery-repository.port.ts';
import { ListAllJobs, parseStatuses } from '../../core/use-cases/admin/list-all-jobs.use-case.ts';
import { WebhookDeliveryLog } from '../../core/use-cases/webhooks/webhook-delivery-log.service.ts';

// Two read paths pinned on fakes: the administrators' list of every user's jobs, and a job's webhook deliveries,
// which only its owner may see or send again.

test('admin job list: statuses default to queued,running; unknown or non-string statuses are refused; repeats dropped', (t) => {
  t.deepEqual(parseStatuses(undefined), { ok: true, value: ['queued', 'running'] });
  t.deepEqual(parseStatuses(''), { ok: true, value: ['queued', 'running'] });
  t.deepEqual(parseStatuses(' failed , succeeded,failed'), { ok: true, value: ['failed', 'succeeded'] });
  for (const bad of ['queued,done', ['queued'], 5]) t.like(parseStatuses(bad), { ok: false, code: 'VALIDATION.FAILED' }, JSON.stringify(bad));
});

test("admin job list: each job with its owner's email (null when the user is gone), one look-up per owner", async (t) => {
  const lookups: string[] = [];
  const jobs = {
    listByStatus: async () => ({ items: [{ id: 'j1', userId: 'u1' }, { id: 'j2', userId: 'gone' }, { id: 'j3', userId: 'u1' }], page: 1, limit: 20, total: 3 }),
  } as unknown as JobRepository;
  const users = { findById: async (id: string) => (lookups.push(id), id === 'u1' ? { email: 'one@example.com' } : null) } as unknown as UserRepository;
  const listed = await new ListAllJobs({ jobs, users }).execute({});
  if (!listed.ok) return t.fail(listed.message);
  t.deepEqual(listed.value.items.map((item) => [item.job.id, item.userEmail]), [['j1', 'one@example.com'], ['j2', null], ['j3', 'one@example.com']]);
  t.deepEqual(lookups.sort(), ['gone', 'u1']);
  t.like(await new ListAllJobs({ jobs, users }).execute({ status: 'nope' }), { ok: false });
  t.like(await new ListAllJobs({ jobs, users }).execute({ limit: 'many' }), { ok: false });
});

const JOB = 'd0000000-0000-4000-8000-00000000000d';
const DELIVERY = 'e0000000-0000-4000-8000-00000000000e';

const log = (options: { redelivered?: boolean; listed?: boolean } = {}) => {
  const redelivers: string[] = [];
  const jobs = { findById: async (id: string) => (id === JOB ? { id, userId: 'owner' } : null) } as unknown as JobRepository;
  const deliveries = {
    // The job's other delivery first: the redelivered one is answered, not the job's first.
    listForJob: async () => (options.listed === false ? [] : [{ id: 'e0000000-0000-4000-8000-0000000000ff', status: 'failed' }, { id: DELIVERY, status: 'pending' }]),
    redeliver: async (_job: string, id: string) => (redelivers.push(id), options.redelivered ?? true),
  } as unknown as WebhookDeliveryRepository;
  return { redelivers, service: new WebhookDeliveryLog({ jobs, deliveries, clock: { now: () => new Date(0) } }) };
};

// Pins: another user's job, a job id that is no UUID and a missing job all answer the same 404; a delivery id that is
// no UUID is not asked of the repository; a redelivery the repository refused, or cannot list after, is 404 too.
test("a job's webhook deliveries: the owner's only; redelivery of a known delivery", async (t) => {
  const { service, redelivers } = log();
  t.like(await service.list('owner', JOB), { ok: true, value: [{ id: 'e0000000-0000-4000-8000-0000000000ff' }, { id: DELIVERY }] });
  for (const [user, job] of [['stranger', JOB], ['owner', 'not-a-uuid'], ['owner', 'f0000000-0000-4000-8000-00000000000f']] as const) {
    t.deepEqual(await service.list(user, job), { ok: false, code: 'NOT_FOUND', message: 'Job not found' });
    t.deepEqual(await service.redeliver(user, job, DELIVERY), { ok: false, code: 'NOT_FOUND', message: 'Job not found' });
  }
  t.deepEqual(redelivers, [], "no redelivery of someone else's delivery");
  t.like(await service.redeliver('owner', JOB, DELIVERY), { ok: true, value: { id: DELIVERY, status: 'pending' } });
  t.like(await service.redeliver('owner', JOB, 'not-a-uuid'), { ok: false, code: 'NOT_FOUND', message: 'Webhook delivery not found' });
  t.deepEqual(redelivers, [DELIVERY]);
  t.like(await log({ redelivered: false }).service.redeliver('owner', JOB, DELIVERY), { ok: false, message: 'Webhook delivery not found' });
  t.like(await log({ listed: false }).service.redeliver('owner', JOB, DELIVERY), { ok: false, message: 'Webhook delivery not found' });
});
