import { api, errorText, query, type Page } from '../api.ts';
import { coins, h, replace, unseen } from '../dom.ts';
import type { HistoryItem } from '../media.ts';
import type { EventSocket, ServerEvent } from '../socket.ts';

export interface Job {
  id: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled' | 'expired';
  templateId: string | null;
  progress: { value: number; max: number };
  statusText: string | null;
  outputs: HistoryItem[];
  /** What the workflow's text nodes (e.g. ComfyUI's PreviewAny) gave back, once it succeeded. */
  textOutputs?: { nodeId: string; text: string }[];
  usedParameters: Record<string, unknown>;
  error: { code: string; message: string } | null;
  refundedCoins: number;
  /** An administrator's test run of a template (ADR 043): shown in the template editor, not here. */
  testRun?: boolean;
  createdAt: string;
  updatedAt: string;
  /** Queue position, and seconds until the job should be done (queued or running), where the server reports them. */
  position?: number;
  etaSeconds?: number | null;
}

/** How many of the user's latest jobs are read on load; endings older than RECENT_MS are left out. */
const LOAD_LIMIT = 50;
const RECENT_MS = 60 * 60 * 1000;
const MAX_ENDED = 5;
const PROMPT_CHARS = 80;
const ACTIVE = new Set(['queued', 'running']);

export function summarisePrompt(parameters: Record<string, unknown>): string {
  const prompt = typeof parameters.prompt === 'string' ? parameters.prompt.trim() : '';
  if (!prompt) return '(no prompt)';
  return prompt.length > PROMPT_CHARS ? `${prompt.slice(0, PROMPT_CHARS - 1)}…` : prompt;
}

/** 75 → "1 min 15 s". */
export function duration(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds));
  if (whole < 60) return `${whole} s`;
  const minutes = Math.floor(whole / 60);
  if (minutes < 60) return `${minutes} min ${whole % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** One job: what it is (template, prompt, when), where it stands, and a cancel button while it may still run. */
class JobRow {
  readonly element: HTMLElement;
  private readonly bar: HTMLProgressElement;
  private readonly text: HTMLElement;
  private readonly queue: HTMLElement;
  private readonly elapsed: HTMLElement;
  private readonly cancel: HTMLButtonElement;
  private readonly message: HTMLElement;
  private readonly texts: HTMLElement;
  private job: Job;
  private outputsShown = false;
  /** When the server expects the job to be done (ms since the epoch), counted down between its reports; null: unknown. */
  private doneAt: number | null = null;

  constructor(
    job: Job,
    templateName: string,
    private readonly onOutputs: (outputs: HistoryItem[]) => void,
    private readonly onEnded: () => void,
  ) {
    this.job = job;
    const prompt = summarisePrompt(job.usedParameters);
    const submitted = new Date(job.createdAt);
    this.bar = h('progress', { max: 1, value: 0, 'aria-label': `Progress of ${templateName}: ${prompt}`, 'data-job': job.id });
    this.text = h('span', { className: 'job-status', role: 'status' }, 'Queued');
    this.queue = h('span', { className: 'job-queue hint' });
    this.elapsed = h('span', { className: 'job-elapsed hint' });
    this.message = h('span', { className: 'hint error', role: 'alert' });
    this.texts = h('div', { className: 'job-texts', hidden: true });
    this.cancel = h('button', { type: 'button', className: 'danger small', on: { click: () => void this.requestCancel() } }, 'Cancel', unseen(` ${templateName}: ${prompt}`));
    this.element = h(
      'li',
      { className: 'job', 'data-job-id': job.id },
      h('div', { className: 'job-head' }, h('strong', null, templateName), h('time', { className: 'hint', dateTime: job.createdAt }, submitted.toLocaleTimeString())),
      h('span', { className: 'job-prompt' }, prompt),
      this.bar,
      h('div', { className: 'job-line' }, this.text, this.queue, this.elapsed, this.cancel),
      this.texts,
      this.message,
    );
    this.fromJob(job);
  }

  get id(): string {
    return this.job.id;
  }

  get active(): boolean {
    return ACTIVE.has(this.job.status);
  }

  apply(event: ServerEvent): void {
    // An ended job is final: a late or replayed event must not bring it back.
    if (!this.active) return;
    switch (event.type) {
      case 'job.queued':
      case 'job.queue':
        if (typeof event.position === 'number') this.job = { ...this.job, position: event.position };
        this.expect(event.etaSeconds);
        this.showQueue();
        break;
      case 'job.started':
        this.job = { ...this.job, status: 'running', position: undefined };
        this.text.textContent = 'Started';
        // The event tells what should be left of it. One stored before events told it (a replay) is asked about; until
        // the answer, its queued estimate (also a time until done) stands.
        if ('etaSeconds' in event) this.expect(event.etaSeconds);
        else void this.readRunningEta();
        this.showQueue();
        break;
      case 'job.status':
        this.text.textContent = String(event.text ?? '');
        break;
      case 'job.progress':
        this.bar.max = Number(event.max) || 1;
        this.bar.value = Number(event.value) || 0;
        break;
      case 'job.completed':
        this.end('succeeded', event.outputs as HistoryItem[]);
        this.showTexts(Array.isArray(event.texts) ? event.texts.map(String) : []);
        break;
      case 'job.failed': {
        const message = (event.error as { message?: string } | undefined)?.message ?? 'unknown error';
        this.job = { ...this.job, error: { code: '', message }, refundedCoins: Number(event.refunded) || 0 };
        this.end('failed', []);
        break;
      }
      case 'job.cancelled':
        this.end('cancelled', []);
        break;
      case 'job.expired':
        this.job = { ...this.job, refundedCoins: Number(event.refunded) || 0 };
        this.end('expired', []);
        break;
    }
  }

  /** Takes the job's state from the server (on load, after a cancel, after a reconnect). */
  fromJob(job: Job): void {
    const wasActive = this.active;
    this.job = job;
    this.expect(job.etaSeconds);
    this.bar.max = job.progress.max || 1;
    this.bar.value = job.progress.value;
    if (job.status === 'queued') this.text.textContent = job.statusText ?? 'Queued';
    else if (job.status === 'running') this.text.textContent = job.statusText ?? 'Started';
    this.showQueue();
    if (!ACTIVE.has(job.status)) this.end(job.status, job.outputs, wasActive);
    if (job.status === 'succeeded') this.showTexts((job.textOutputs ?? []).map((output) => output.text));
    this.tick();
  }

  /** Elapsed time: running on while the job is active, frozen at its last change once it ended; the expected rest counts down. */
  tick(now = Date.now()): void {
    const until = this.active ? now : new Date(this.job.updatedAt).getTime();
    this.elapsed.textContent = `${duration((until - new Date(this.job.createdAt).getTime()) / 1000)}${this.active ? ' so far' : ''}`;
    if (this.active) this.showQueue(now);
  }

  /** `etaSeconds` as the server sent it: a number of seconds, or null (or missing) when it knows none. */
  private expect(etaSeconds: unknown, now = Date.now()): void {
    this.doneAt = typeof etaSeconds === 'number' ? now + etaSeconds * 1000 : null;
  }

  /** A job that just started whose event told no time left: the server's estimate of what is left of it. */
  private async readRunningEta(): Promise<void> {
    try {
      // A job that ended meanwhile has no estimate, and an ended row shows none.
      this.expect((await api.get<Job>(`/generate/${this.job.id}`)).etaSeconds);
      this.showQueue();
    } catch {
      // Only an estimate: the row shows none.
    }
  }

  /**
   * Queued: its place and when it should be done; running: what should be left of it. Counted down from the server's
   * last report; nothing once that time has passed (a job later than expected is not shown as "0 s").
   */
  private showQueue(now = Date.now()): void {
    const parts: string[] = [];
    const left = this.doneAt === null ? 0 : Math.ceil((this.doneAt - now) / 1000);
    if (this.job.status === 'queued' && typeof this.job.position === 'number') parts.push(`position ${this.job.position}`);
    if (this.job.status === 'queued' && left > 0) parts.push(`done in about ${duration(left)}`);
    if (this.job.status === 'running' && left > 0) parts.push(`about ${duration(left)} left`);
    this.queue.textContent = parts.join(', ');
    this.queue.hidden = parts.length === 0;
  }

  /** A succeeded job's text outputs (from the list or its completion event), each as a paragraph under "Text output". */
  private showTexts(all: string[]): void {
    const texts = all.filter((text) => text.trim() !== '');
    replace(this.texts, texts.length > 0 ? [h('span', { className: 'hint' }, texts.length === 1 ? 'Text output' : 'Text outputs'), texts.map((text) => h('p', null, text))] : null);
    this.texts.hidden = texts.length === 0;
  }

  /** `wasActive` is known by the caller when the job's state came from the server; an event ends the job now. */
  private end(status: Job['status'], outputs: HistoryItem[], wasActive?: boolean): void {
    const fromEvent = wasActive === undefined;
    const ending = fromEvent ? this.active : wasActive;
    this.job = { ...this.job, status, updatedAt: fromEvent && ending ? new Date().toISOString() : this.job.updatedAt };
    this.cancel.hidden = true;
    this.showQueue();
    if (status === 'succeeded') {
      this.bar.value = this.bar.max;
      this.text.textContent = 'Done';
    } else if (status === 'failed') {
      this.text.textContent = `Failed: ${this.job.error?.message ?? 'unknown error'}${this.job.refundedCoins ? ` (${coins(this.job.refundedCoins)} refunded)` : ''}`;
    } else if (status === 'expired') {
      this.text.textContent = `Expired: not started before its deadline${this.job.refundedCoins ? ` (${coins(this.job.refundedCoins)} refunded)` : ''}`;
    } else {
      this.text.textContent = 'Cancelled';
    }
    this.tick();
    // Only outputs seen arriving are "this session's"; jobs that had ended before the page loaded stay in History.
    if (ending && !this.outputsShown && outputs.length > 0) {
      this.outputsShown = true;
      this.onOutputs(outputs);
    }
    if (ending) this.onEnded();
  }

  private async requestCancel(): Promise<void> {
    this.cancel.disabled = true;
    this.message.textContent = '';
    try {
      this.fromJob(await api.post<Job>(`/generate/${this.job.id}/cancel`));
    } catch (failure) {
      this.message.textContent = errorText(failure);
      this.cancel.disabled = false;
    }
  }
}

export interface JobsPanel {
  element: HTMLElement;
  /** Shows a job just submitted (idempotent: a job already shown is updated). */
  add(job: Job): void;
  dispose(): void;
}

/**
 * The user's jobs, read from the server (so they survive a reload) and kept live by the socket: running and
 * queued ones first-hand, plus the latest few endings of the last hour. Events for a job not shown yet (one
 * submitted in another tab) fetch it; a snapshot after a reconnect reloads the list.
 */
export async function jobsPanel(options: {
  socket: EventSocket;
  templateName: (templateId: string | null) => string;
  onOutputs: (outputs: HistoryItem[]) => void;
  onEnded: () => void;
}): Promise<JobsPanel> {
  const list = h('ul', { className: 'jobs', 'aria-label': 'Jobs' });
  const empty = h('p', { className: 'hint' }, 'No jobs yet.');
  const rows = new Map<string, JobRow>();
  const row = (job: Job): JobRow => new JobRow(job, options.templateName(job.templateId), options.onOutputs, options.onEnded);

  /** `shownBefore`: the rows when the list was asked for; one added since (just submitted) is newer than the list. */
  const show = (jobs: Job[], shownBefore: Set<string>): void => {
    const cutoff = Date.now() - RECENT_MS;
    const active = jobs.filter((job) => ACTIVE.has(job.status));
    const ended = jobs.filter((job) => !ACTIVE.has(job.status) && new Date(job.updatedAt).getTime() >= cutoff).slice(0, MAX_ENDED);
    const chosen = new Set([...active, ...ended].map((job) => job.id));
    const ordered = jobs.filter((job) => chosen.has(job.id));
    const previous = new Map(rows);
    const newer = [...previous.values()].filter((shown) => !shownBefore.has(shown.id) && !chosen.has(shown.id));
    rows.clear();
    for (const shown of newer) rows.set(shown.id, shown);
    for (const job of ordered) {
      const known = previous.get(job.id);
      known?.fromJob(job);
      rows.set(job.id, known ?? row(job));
    }
    replace(list, [...rows.values()].map((shown) => shown.element));
    empty.hidden = rows.size > 0;
  };
  const load = async (): Promise<void> => {
    const shownBefore = new Set(rows.keys());
    show((await api.get<Page<Job>>(`/generate${query({ limit: LOAD_LIMIT })}`)).items, shownBefore);
  };
  /** Test runs of templates (their events reach this socket too): the template editor shows them, not this list. */
  const testRuns = new Set<string>();
  const add = (job: Job): void => {
    if (job.testRun) return void testRuns.add(job.id);
    // A job already shown is followed by its events, which may be newer than this copy.
    if (rows.has(job.id)) return;
    const made = row(job);
    rows.set(job.id, made);
    list.prepend(made.element);
    // Once more in the document: the bar's starting state is then a change that observers (and tests) see.
    made.fromJob(job);
    empty.hidden = true;
  };

  /** Jobs being fetched, with the events that came in meanwhile (applied once the job is shown). */
  const fetching = new Map<string, ServerEvent[]>();
  const off = options.socket.on((event) => {
    if (event.type === 'job.snapshot') return void load().catch(() => undefined);
    if (!event.jobId || !event.type.startsWith('job.')) return;
    const known = rows.get(event.jobId);
    if (known) return known.apply(event);
    if (testRuns.has(event.jobId)) return;
    const id = event.jobId;
    const waiting = fetching.get(id);
    if (waiting) return void waiting.push(event);
    fetching.set(id, []);
    void api
      .get<Job>(`/generate/${id}`)
      .then((job) => {
        add(job);
        for (const later of fetching.get(id) ?? []) rows.get(id)?.apply(later);
      })
      .catch(() => undefined)
      .finally(() => fetching.delete(id));
  });
  const timer = setInterval(() => {
    const now = Date.now();
    for (const shown of rows.values()) if (shown.active) shown.tick(now);
  }, 1000);

  await load();
  return {
    element: h('div', null, empty, list),
    add,
    dispose: () => {
      off();
      clearInterval(timer);
    },
  };
}
