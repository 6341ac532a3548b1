/**
 * GET /api/v1/generate?limit=20, the job list a client polls, and GET /api/v1/my-outputs?limit=20, at 50 connections on
 * SQLite, against bare Express measured in the same run, in three shapes:
 *   succeeded   20 finished jobs of one output each (each item carries its outputs and their signed view URLs);
 *   outputs     the same 20 outputs through GET /api/v1/my-outputs?limit=20 (each with its template's name);
 *   queued      20 queued jobs of one user behind 20 of another (API role only, no worker: they stay queued), each
 *               with its queue position and ETA (ADR 037; no run has finished here, so the ETA is null, but it is still
 *               worked out: the running jobs, the estimates and the jobs ahead are read all the same).
 *   one queued  the last of those jobs polled alone, GET /api/v1/generate/{id}, as a client waiting for it does.
 * Each line also prints the answer's check: each succeeded job with its output, each output with its template's
 * name, each queued job with a position. `npx tsx bench/job-list.bench.ts`
 */
import { api, baseline, load, pause, printLine, signUpAndLogin, startService, type Service, type Session } from './support/harness.ts';

const DURATION_S = 5;
const ADMIN = 'bench-admin@example.com';
const PAGE = 20;

interface JobItem {
  status: string;
  outputs?: unknown[];
  position?: number | null;
  etaSeconds?: number | null;
}

async function submit(service: Service, user: Session, templateId: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const answer = await api(service.url, user, 'POST', '/generate', { templateId, parameters: { prompt: `bench ${i}`, width: 64, height: 64 } });
    if (answer.status !== 202) throw new Error(`submit: ${answer.status} ${JSON.stringify(answer.body)}`);
  }
}

async function listUntil(service: Service, user: Session, done: (items: JobItem[]) => boolean): Promise<JobItem[]> {
  for (let tries = 0; tries < 600; tries++) {
    const items = (await api(service.url, user, 'GET', `/generate?limit=${PAGE}`)).body.items as JobItem[];
    if (done(items)) return items;
    await pause(100);
  }
  throw new Error('the jobs did not reach the expected state');
}

async function richUser(service: Service, admin: Session): Promise<{ user: Session; templateId: string }> {
  const user = await signUpAndLogin(service.url);
  const topUp = await api(service.url, admin, 'POST', `/admin/coin/add/${user.user.id}`, { amount: 1_000, reason: 'admin_adjustment' });
  if (topUp.status !== 200) throw new Error(`top-up: ${topUp.status}`);
  const template = ((await api(service.url, user, 'GET', '/templates')).body as { id: string; name: string }[]).find((t) => t.name === 'Solid colour image');
  if (!template) throw new Error('ready template missing');
  return { user, templateId: template.id };
}

async function measure(service: Service, user: Session, base: Awaited<ReturnType<typeof baseline>>, shape: string, check: Record<string, unknown>, route = '/generate', query = `?limit=${PAGE}`): Promise<void> {
  const options = { url: `${service.url}/api/v1${route}${query}`, headers: { authorization: `Bearer ${user.accessToken}` } };
  await load({ ...options, durationS: 1 });
  const run = await load({ ...options, durationS: DURATION_S, server: service });
  printLine('job-list', 'sqlite', run, base, { route: `GET ${route.replace(/[0-9a-f-]{36}$/, '{id}')}`, shape, page: query ? PAGE : 1, ok200: run.statusCounts['200'] ?? 0, errors: run.errors, ...check });
}

const base = await baseline(DURATION_S);

// 1. A page of finished jobs, one output each.
const done = await startService('sqlite', { ADMIN_EMAILS: ADMIN });
try {
  const admin = await signUpAndLogin(done.url, ADMIN);
  const { user, templateId } = await richUser(done, admin);
  await submit(done, user, templateId, PAGE);
  const items = await listUntil(done, user, (page) => page.length === PAGE && page.every((job) => job.status === 'succeeded'));
  await measure(done, user, base, 'succeeded', { everyItemHasItsOutput: items.every((job) => job.outputs?.length === 1) });
  // The same outputs as the output history lists them (each with its template's name).
  const history = (await api(done.url, user, 'GET', `/my-outputs?limit=${PAGE}`)).body.items as { templateName: string | null }[];
  await measure(done, user, base, 'outputs', { everyItemNamed: history.length === PAGE && history.every((item) => item.templateName === 'Solid colour image') }, '/my-outputs');
} finally {
  await done.stop();
}

// 2. A page of queued jobs behind another user's: no worker, so they stay queued.
const queued = await startService('sqlite', { ADMIN_EMAILS: ADMIN, ROLES: 'api', MAX_ACTIVE_JOBS_PER_USER: '100' });
try {
  const admin = await signUpAndLogin(queued.url, ADMIN);
  const [first, second] = [await richUser(queued, admin), await richUser(queued, admin)];
  await submit(queued, first.user, first.templateId, PAGE);
  await submit(queued, second.user, second.templateId, PAGE);
  const items = await listUntil(queued, second.user, (page) => page.length === PAGE && page.every((job) => job.status === 'queued'));
  await measure(queued, second.user, base, 'queued', { everyItemHasAPosition: items.every((job) => typeof job.position === 'number') });
  // One queued job polled by its id, as a client waiting for it does.
  const last = items[0] as JobItem & { id: string };
  const one = (await api(queued.url, second.user, 'GET', `/generate/${last.id}`)).body as JobItem;
  await measure(queued, second.user, base, 'one queued', { hasItsPosition: one.position === PAGE * 2 - 1 }, `/generate/${last.id}`, '');
} finally {
  await queued.stop();
}
