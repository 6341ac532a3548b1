import { api, ApiError, query, type Page } from '../api.ts';
import { coins, field, h, replace, statusLine, type Child } from '../dom.ts';
import type { Ctx } from '../main.ts';
import { pager } from './history.ts';

/** The admin console (ADR 032): fleet, queue and dead letters, every user's jobs, template health. */

interface ServerStatus {
  server: number;
  name: string;
  healthy: boolean;
  error: string | null;
  running: number | null;
  waiting: number | null;
  version: string | null;
  devices: { name: string; vramTotalMiB: number; vramFreeMiB: number }[];
  models: Record<string, string[]>;
}

interface MessageView {
  id: string;
  taskType: string;
  environment: string;
  jobId: string | null;
  userId: string | null;
  summary: string;
  reason: string | null;
}

interface AdminJob {
  id: string;
  status: string;
  templateId: string | null;
  progress: { value: number; max: number };
  statusText: string;
  paidCoins: number;
  /** A template's test run by an administrator (ADR 043): charged to nobody. */
  testRun?: boolean;
  createdAt: string;
  userId: string;
  userEmail: string | null;
  /** The ComfyUI server (place in COMFYUI_URLS) it was handed to; null before it starts and with the builtin engine. */
  engineServer: number | null;
}

interface TemplateStats {
  templateId: string;
  name: string | null;
  jobs: number;
  succeeded: number;
  failed: number;
  cancelled: number;
  failureRate: number | null;
  p50RunMs: number | null;
  p95RunMs: number | null;
}

const table = (caption: string, headers: string[], body: HTMLElement): HTMLElement =>
  // Focusable, so that keyboard users can scroll a table wider than a phone.
  h('table', { tabIndex: 0 }, h('caption', { className: 'sr-only' }, caption), h('thead', null, h('tr', null, headers.map((c) => h('th', { scope: 'col' }, c)))), body);

/** The table rows of `items`, or one row saying there are none. */
const rows = <T>(items: T[], columns: number, empty: string, render: (item: T) => HTMLElement): HTMLElement | HTMLElement[] =>
  items.length === 0 ? h('tr', null, h('td', { colSpan: columns }, empty)) : items.map(render);

const failureText = (failure: unknown, fallback: string): string => (failure instanceof ApiError ? failure.message : fallback);

/** A page that loads on open and on its Refresh button, reporting a failed load in its status line. */
async function refreshable(main: HTMLElement, title: string, load: () => Promise<void>, status: HTMLElement, ...content: Child[]): Promise<void> {
  const run = async () => {
    try {
      await load();
    } catch (failure) {
      status.className = 'status error';
      status.textContent = failureText(failure, `Could not load the ${title.toLowerCase()}.`);
    }
  };
  replace(main, h('h1', null, title), h('button', { type: 'button', className: 'secondary', on: { click: () => void run() } }, 'Refresh'), status, ...content);
  await run();
}

const vram = (server: ServerStatus): string =>
  server.devices.length === 0 ? '—' : server.devices.map((d) => `${d.name}: ${d.vramFreeMiB} of ${d.vramTotalMiB} MiB free`).join('; ');

const models = (server: ServerStatus): Child => {
  const entries = Object.entries(server.models);
  return entries.length === 0 ? '—' : h('ul', { className: 'plain' }, entries.map(([input, files]) => h('li', null, h('strong', null, `${input}: `), files.join(', '))));
};

export async function fleetPage(_ctx: Ctx, main: HTMLElement): Promise<void> {
  const body = h('tbody');
  const totals = h('p');
  const status = statusLine();
  await refreshable(main, 'Fleet', async () => {
    const fleet = await api.get<{ servers: ServerStatus[]; jobs: { queued: number; running: number } }>('/admin/fleet');
    totals.textContent = `${fleet.jobs.queued} jobs queued, ${fleet.jobs.running} running.`;
    replace(
      body,
      fleet.servers.map((server) =>
        h(
          'tr',
          null,
          h('th', { scope: 'row' }, server.name),
          h('td', null, server.healthy ? 'Healthy' : `Down: ${server.error ?? 'no answer'}`),
          h('td', { className: 'num' }, server.running ?? '—'),
          h('td', { className: 'num' }, server.waiting ?? '—'),
          h('td', null, vram(server)),
          h('td', null, models(server)),
        ),
      ),
    );
  }, status, totals, table('Engine servers', ['Server', 'Health', 'Running', 'Waiting', 'VRAM', 'Models'], body));
}

export async function queuePage(_ctx: Ctx, main: HTMLElement): Promise<void> {
  const waitingBody = h('tbody');
  const deadBody = h('tbody');
  const counts = h('p');
  const status = statusLine();
  const act = async (message: MessageView, action: 'redrive' | 'discard') => {
    try {
      if (action === 'redrive') await api.post(`/admin/dead-letters/${encodeURIComponent(message.id)}/redrive`);
      else await api.delete(`/admin/dead-letters/${encodeURIComponent(message.id)}`);
      status.className = 'status';
      status.textContent = action === 'redrive' ? `Message ${message.id} is back on the queue.` : `Message ${message.id} was discarded.`;
    } catch (failure) {
      status.className = 'status error';
      status.textContent = failureText(failure, 'That did not work.');
    }
    await load();
  };
  const job = (message: MessageView): Child => (message.jobId ? h('code', null, message.jobId) : h('code', null, message.summary));
  async function load(): Promise<void> {
    const [queue, dead] = await Promise.all([
      api.get<{ messages: MessageView[]; waiting: Record<string, number>; complete: boolean }>('/admin/queue?limit=50'),
      api.get<{ items: MessageView[] }>('/admin/dead-letters?limit=50'),
    ]);
    const perType = Object.entries(queue.waiting).map(([type, n]) => `${type}: ${n}`).join(', ') || 'nothing';
    counts.textContent = `Waiting: ${perType}${queue.complete ? '.' : ' (the first 50 shown; more wait).'}`;
    replace(
      waitingBody,
      rows(queue.messages, 3, 'Nothing waits.', (m) => h('tr', null, h('td', null, h('code', null, m.id)), h('td', null, m.taskType), h('td', null, job(m)))),
    );
    replace(
      deadBody,
      rows(dead.items, 5, 'No dead letters.', (m) =>
            h(
              'tr',
              null,
              h('td', null, h('code', null, m.id)),
              h('td', null, m.taskType),
              h('td', null, job(m)),
              h('td', null, m.reason ?? '—'),
              h(
                'td',
                { className: 'actions' },
                h('button', { type: 'button', className: 'secondary', 'aria-label': `Redrive message ${m.id}`, on: { click: () => void act(m, 'redrive') } }, 'Redrive'),
                h('button', { type: 'button', className: 'danger', 'aria-label': `Discard message ${m.id}`, on: { click: () => void act(m, 'discard') } }, 'Discard'),
              ),
            ),
          ),
    );
  }
  await refreshable(
    main,
    'Queue',
    load,
    status,
    h('h2', null, 'Waiting'),
    counts,
    table('Waiting messages', ['Message', 'Task', 'Job'], waitingBody),
    h('h2', null, 'Dead letters'),
    table('Dead letters', ['Message', 'Task', 'Job', 'Reason', 'Actions'], deadBody),
  );
}

export async function jobsPage(_ctx: Ctx, main: HTMLElement): Promise<void> {
  const filter = h('select', { name: 'status' }, h('option', { value: 'queued,running' }, 'Queued and running'), h('option', { value: 'queued' }, 'Queued'), h('option', { value: 'running' }, 'Running'));
  const body = h('tbody');
  const nav = h('div');
  const status = statusLine();
  let page = 1;
  const cancel = async (job: AdminJob) => {
    try {
      const cancelled = await api.post<{ refundedCoins: number }>(`/admin/jobs/${job.id}/cancel`);
      status.className = 'status';
      status.textContent = `Job ${job.id} of ${job.userEmail ?? job.userId} cancelled; ${coins(cancelled.refundedCoins)} refunded.`;
    } catch (failure) {
      status.className = 'status error';
      status.textContent = failureText(failure, 'The cancel failed.');
    }
    await load();
  };
  async function load(): Promise<void> {
    const result = await api.get<Page<AdminJob>>(`/admin/jobs${query({ status: filter.value, page, limit: 25 })}`);
    replace(
      body,
      rows(result.items, 7, 'No jobs.', (job) =>
            h(
              'tr',
              null,
              h('td', null, h('time', { dateTime: job.createdAt }, new Date(job.createdAt).toLocaleString())),
              h('td', null, job.userEmail ?? job.userId),
              h('td', null, job.testRun ? `${job.status} (test run)` : job.status),
              h('td', null, h('progress', { value: job.progress.value, max: job.progress.max, 'aria-label': `Progress of job ${job.id}` })),
              h('td', { className: 'num' }, job.paidCoins),
              h('td', null, job.engineServer === null ? '—' : `server ${job.engineServer}`),
              h(
                'td',
                null,
                h('button', { type: 'button', className: 'danger', 'aria-label': `Cancel job ${job.id} of ${job.userEmail ?? job.userId}`, on: { click: () => void cancel(job) } }, 'Cancel'),
              ),
            ),
          ),
    );
    replace(nav, pager(page, result.totalPages, (next) => ((page = next), void load())));
  }
  filter.addEventListener('change', () => ((page = 1), void load()));
  await refreshable(main, 'Jobs', load, status, h('div', { className: 'inline' }, field('Show', filter)), table("Every user's jobs", ['Created', 'User', 'Status', 'Progress', 'Coins', 'Server', 'Actions'], body), nav);
}

const ms = (value: number | null): string => (value === null ? '—' : value >= 10_000 ? `${(value / 1000).toFixed(0)} s` : `${(value / 1000).toFixed(1)} s`);

export async function templateHealthPage(_ctx: Ctx, main: HTMLElement): Promise<void> {
  const span = h('select', { name: 'hours' }, h('option', { value: '24' }, 'Last 24 hours'), h('option', { value: '168' }, 'Last 7 days'), h('option', { value: '720' }, 'Last 30 days'));
  const body = h('tbody');
  const status = statusLine();
  async function load(): Promise<void> {
    const result = await api.get<{ templates: TemplateStats[] }>(`/admin/templates/stats${query({ hours: span.value })}`);
    replace(
      body,
      rows(result.templates, 8, 'No template jobs in this window.', (row) =>
            h(
              'tr',
              null,
              h('th', { scope: 'row' }, row.name ?? `${row.templateId} (deleted)`),
              h('td', { className: 'num' }, row.jobs),
              h('td', { className: 'num' }, row.succeeded),
              h('td', { className: 'num' }, row.failed),
              h('td', { className: 'num' }, row.cancelled),
              h('td', { className: 'num' }, row.failureRate === null ? '—' : `${Math.round(row.failureRate * 100)} %`),
              h('td', { className: 'num' }, ms(row.p50RunMs)),
              h('td', { className: 'num' }, ms(row.p95RunMs)),
            ),
          ),
    );
  }
  span.addEventListener('change', () => void load());
  await refreshable(
    main,
    'Template health',
    load,
    status,
    h('div', { className: 'inline' }, field('Window', span)),
    table('Template health', ['Template', 'Jobs', 'Succeeded', 'Failed', 'Cancelled', 'Failure rate', 'p50 run', 'p95 run'], body),
  );
}
