import { api, ApiError, type User } from '../api.ts';
import { field, h, replace, statusLine, uuid } from '../dom.ts';
import type { Ctx } from '../main.ts';
import { mediaFor, type HistoryItem } from '../media.ts';
import type { ServerEvent } from '../socket.ts';

export interface Parameter {
  key: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'enum' | 'image' | 'seed';
  label?: string;
  description?: string;
  default?: unknown;
  required?: boolean;
  min?: number;
  max?: number;
  options?: (string | number)[];
}

interface Template {
  id: string;
  name: string;
  description: string | null;
  category: string;
  cost: number;
  outputType: 'image' | 'video';
  parameters: Parameter[];
}

interface Job {
  id: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
  progress: { value: number; max: number };
  statusText: string | null;
  outputs: HistoryItem[];
  error: { code: string; message: string } | null;
}

const GALLERY_LIMIT = 20;
/** Outputs made in this browser session (kept while the page lives), newest first. */
const gallery: HistoryItem[] = [];
const FINISHED = new Set(['succeeded', 'failed', 'cancelled']);

/** One job being watched: its progress bar and status text follow the socket. */
class JobRow {
  readonly element: HTMLElement;
  private readonly bar: HTMLProgressElement;
  private readonly text: HTMLElement;
  finished = false;

  constructor(
    readonly id: string,
    templateName: string,
    private readonly onOutputs: (outputs: HistoryItem[]) => void,
    private readonly onFinished: () => void,
  ) {
    const label = `Progress of ${templateName}`;
    this.bar = h('progress', { max: 1, value: 0, 'aria-label': label, 'data-job': id });
    this.text = h('span', { className: 'job-status', role: 'status' }, 'Queued');
    this.element = h('li', { className: 'job' }, h('strong', null, templateName), this.bar, this.text);
  }

  apply(event: ServerEvent): void {
    switch (event.type) {
      case 'job.queued':
        this.text.textContent = typeof event.position === 'number' ? `Queued (position ${event.position})` : 'Queued';
        break;
      case 'job.started':
        this.text.textContent = 'Started';
        break;
      case 'job.status':
        this.text.textContent = String(event.text ?? '');
        break;
      case 'job.progress':
        this.bar.max = Number(event.max) || 1;
        this.bar.value = Number(event.value) || 0;
        break;
      case 'job.completed':
        this.finish('Done', event.outputs as HistoryItem[]);
        break;
      case 'job.failed':
        this.finish(`Failed: ${(event.error as { message?: string } | undefined)?.message ?? 'unknown error'}${event.refunded ? ` (${String(event.refunded)} coins refunded)` : ''}`, []);
        break;
      case 'job.cancelled':
        this.finish('Cancelled', []);
        break;
    }
  }

  /** Catches up from the job itself (after a reconnect that could not replay everything). */
  fromJob(job: Job): void {
    this.bar.max = job.progress.max || 1;
    this.bar.value = job.progress.value;
    if (job.statusText) this.text.textContent = job.statusText;
    if (job.status === 'succeeded') this.finish('Done', job.outputs);
    else if (job.status === 'failed') this.finish(`Failed: ${job.error?.message ?? 'unknown error'}`, []);
    else if (job.status === 'cancelled') this.finish('Cancelled', []);
  }

  private finish(text: string, outputs: HistoryItem[]): void {
    if (this.finished) return;
    this.finished = true;
    if (text === 'Done') this.bar.value = this.bar.max;
    this.text.textContent = text;
    this.onOutputs(outputs);
    this.onFinished();
  }
}

const rows = new Map<string, JobRow>();

function control(parameter: Parameter): { element: HTMLElement; read(): unknown; ready(): Promise<void> } {
  const initial = parameter.default;
  switch (parameter.type) {
    case 'boolean': {
      const input = h('input', { type: 'checkbox', name: parameter.key, checked: initial === true });
      return { element: input, read: () => input.checked, ready: async () => undefined };
    }
    case 'enum': {
      const select = h(
        'select',
        { name: parameter.key, required: parameter.required },
        parameter.required ? null : h('option', { value: '' }, '(default)'),
        (parameter.options ?? []).map((option) => h('option', { value: String(option), selected: option === initial }, String(option))),
      );
      return {
        element: select,
        read: () => (select.value === '' ? undefined : (parameter.options ?? []).find((option) => String(option) === select.value)),
        ready: async () => undefined,
      };
    }
    case 'image': {
      const input = h('input', { type: 'file', name: parameter.key, accept: 'image/png,image/jpeg,image/webp', required: parameter.required });
      const preview = h('span', { className: 'thumb' });
      let uploadId: string | undefined;
      let pending: Promise<void> = Promise.resolve();
      input.addEventListener('change', () => {
        const file = input.files?.[0];
        uploadId = undefined;
        replace(preview);
        if (!file) return;
        const form = new FormData();
        form.append('file', file);
        pending = api.upload<{ id: string }>('/uploads', form).then((upload) => {
          uploadId = upload.id;
          const url = URL.createObjectURL(file);
          replace(preview, h('img', { src: url, alt: `Chosen ${parameter.label ?? parameter.key}`, on: { load: () => URL.revokeObjectURL(url) } }));
        });
      });
      return { element: h('div', null, input, preview), read: () => uploadId, ready: () => pending };
    }
    case 'integer':
    case 'number':
    case 'seed': {
      const input = h('input', {
        type: 'number',
        name: parameter.key,
        inputMode: parameter.type === 'number' ? 'decimal' : 'numeric',
        step: parameter.type === 'number' ? 'any' : '1',
        min: parameter.min ?? (parameter.type === 'seed' ? 0 : undefined),
        max: parameter.max,
        required: parameter.required,
        value: typeof initial === 'number' ? String(initial) : '',
      });
      const read = () => (input.value === '' ? undefined : Number(input.value));
      if (parameter.type !== 'seed') return { element: input, read, ready: async () => undefined };
      const random = h('button', { type: 'button', className: 'secondary', on: { click: () => (input.value = String(Math.floor(Math.random() * 2 ** 31))) } }, 'Random');
      return { element: h('div', { className: 'inline' }, input, random), read, ready: async () => undefined };
    }
    default: {
      const multiline = parameter.key.includes('prompt');
      const input = multiline
        ? h('textarea', { name: parameter.key, rows: 3, required: parameter.required }, typeof initial === 'string' ? initial : '')
        : h('input', { type: 'text', name: parameter.key, required: parameter.required, value: typeof initial === 'string' ? initial : '' });
      return { element: input, read: () => (input.value === '' ? undefined : input.value), ready: async () => undefined };
    }
  }
}

export async function generatePage(ctx: Ctx, main: HTMLElement): Promise<() => void> {
  const denied = new URLSearchParams(location.search).get('denied') === 'admin';
  const templates = await api.get<Template[]>('/templates');
  const picker = h(
    'select',
    { name: 'template' },
    templates.map((template) => h('option', { value: template.id }, `${template.name} (${template.cost} coins, ${template.outputType})`)),
  );
  const description = h('p', { className: 'hint' });
  const fields = h('div', { className: 'fields' });
  const cost = h('p', { className: 'cost', 'data-testid': 'cost' });
  const status = statusLine('status error');
  const submit = h('button', { type: 'submit' }, 'Generate');
  const jobs = h('ul', { className: 'jobs', 'aria-label': 'Jobs' });
  const galleryList = h('ul', { className: 'grid', 'aria-label': 'Outputs of this session' });
  let readers: { key: string; read(): unknown; ready(): Promise<void> }[] = [];

  const current = () => templates.find((template) => template.id === picker.value);
  const showCost = () => {
    const template = current();
    const balance = ctx.user?.coinBalance ?? 0;
    cost.textContent = template ? `Costs ${template.cost} coins; you have ${balance}.` : '';
    submit.disabled = !template || template.cost > balance;
    if (template && template.cost > balance) status.textContent = 'Not enough coins for this template.';
  };
  const showTemplate = () => {
    const template = current();
    status.textContent = '';
    description.textContent = template?.description ?? '';
    readers = [];
    replace(
      fields,
      (template?.parameters ?? []).map((parameter) => {
        const made = control(parameter);
        readers.push({ key: parameter.key, read: made.read, ready: made.ready });
        const hint = [parameter.description, parameter.min !== undefined || parameter.max !== undefined ? `From ${parameter.min ?? '…'} to ${parameter.max ?? '…'}.` : '']
          .filter(Boolean)
          .join(' ');
        return wrap(parameter, made.element, hint);
      }),
    );
    showCost();
  };
  const renderGallery = () =>
    replace(
      galleryList,
      gallery.map((item) => h('li', { className: 'tile' }, mediaFor(item, `Output ${item.fileName}`), h('span', { className: 'hint' }, item.fileName))),
    );
  const addOutputs = (outputs: HistoryItem[]) => {
    for (const output of outputs) if (!gallery.some((known) => known.id === output.id)) gallery.unshift(output);
    gallery.splice(GALLERY_LIMIT);
    renderGallery();
  };
  const watch = (job: Job, name: string) => {
    const row = new JobRow(job.id, name, addOutputs, () => void ctx.refreshUser().then(showCost).catch(() => undefined));
    rows.set(job.id, row);
    jobs.prepend(row.element);
    row.fromJob(job);
  };

  const off = ctx.socket.on((event) => {
    if (event.type === 'job.snapshot') {
      // Jobs that finished while the socket was down are no longer active: read them once.
      const active = new Set(((event.jobs as Job[]) ?? []).map((job) => job.id));
      for (const row of rows.values()) {
        if (!row.finished && !active.has(row.id)) void api.get<Job>(`/generate/${row.id}`).then((job) => row.fromJob(job));
      }
      for (const job of (event.jobs as Job[]) ?? []) rows.get(job.id)?.fromJob(job);
      return;
    }
    if (event.jobId) rows.get(event.jobId)?.apply(event);
  });

  const form = h(
    'form',
    {
      className: 'card',
      'aria-labelledby': 'generate-title',
      on: {
        submit: async (event: SubmitEvent) => {
          event.preventDefault();
          const template = current();
          if (!template) return;
          submit.disabled = true;
          status.textContent = '';
          try {
            await Promise.all(readers.map((reader) => reader.ready()));
            const parameters: Record<string, unknown> = {};
            for (const reader of readers) {
              const value = reader.read();
              if (value !== undefined) parameters[reader.key] = value;
            }
            const requestId = uuid();
            const job = await api.post<Job>('/generate', { templateId: template.id, parameters, requestId }, requestId);
            watch(job, template.name);
            await ctx.refreshUser();
          } catch (failure) {
            status.textContent = failure instanceof ApiError ? failure.message : 'The service could not be reached.';
          } finally {
            showCost();
          }
        },
      },
    },
    h('h1', { id: 'generate-title' }, 'Generate'),
    denied ? h('p', { className: 'notice', role: 'alert' }, 'That page is for administrators only.') : null,
    templates.length === 0 ? h('p', null, 'No templates are available yet.') : field('Template', picker),
    description,
    fields,
    cost,
    status,
    submit,
  );
  picker.addEventListener('change', showTemplate);
  replace(
    main,
    h('div', { className: 'columns' }, form, h('section', { className: 'card', 'aria-labelledby': 'jobs-title' }, h('h2', { id: 'jobs-title' }, 'Jobs'), jobs)),
    h('section', { 'aria-labelledby': 'gallery-title' }, h('h2', { id: 'gallery-title' }, 'This session'), galleryList),
  );
  for (const row of rows.values()) jobs.append(row.element);
  showTemplate();
  renderGallery();
  return off;
}

/** A labelled field around a control that may be a group (file input and preview, number and button). */
function wrap(parameter: Parameter, element: HTMLElement, hint: string): HTMLElement {
  const label = `${parameter.label ?? parameter.key}${parameter.required ? ' (required)' : ''}`;
  if (element.matches('input,select,textarea')) return field(label, element, hint || undefined);
  const target = element.querySelector('input,select,textarea') as HTMLElement;
  const built = field(label, target, hint || undefined);
  built.insertBefore(element, built.querySelector('small'));
  element.prepend(target);
  return built;
}

export type { User };
