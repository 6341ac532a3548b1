import { api, ApiError, type User } from '../api.ts';
import { field, h, replace, statusLine, uuid } from '../dom.ts';
import type { Ctx } from '../main.ts';
import { mediaFor, type HistoryItem } from '../media.ts';
import { jobsPanel, type Job } from './jobs-panel.ts';

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

const GALLERY_LIMIT = 20;
/** Outputs made in this browser session (kept while the page lives), newest first. */
const gallery: HistoryItem[] = [];

/** A colour travels as one integer 0xRRGGBB: an integer parameter named like a colour, ranging over exactly that. */
export const isColour = (parameter: Parameter): boolean =>
  parameter.type === 'integer' && /colou?r/i.test(parameter.key) && (parameter.min ?? 0) === 0 && parameter.max === 0xffffff;
export const colourToHex = (value: number): string => `#${Math.trunc(value).toString(16).padStart(6, '0').slice(-6)}`;
export const hexToColour = (hex: string): number => Number.parseInt(hex.replace('#', ''), 16);

/** The control of one parameter, starting at `initial` (a remixed value) or the parameter's default. */
function control(parameter: Parameter, initial: unknown = parameter.default): { element: HTMLElement; read(): unknown; ready(): Promise<void> } {
  if (isColour(parameter)) {
    const input = h('input', { type: 'color', name: parameter.key, className: 'colour', value: colourToHex(typeof initial === 'number' ? initial : 0) });
    return { element: input, read: () => hexToColour(input.value), ready: async () => undefined };
  }
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
      // A remix reuses the earlier input (an upload's or an output's id) until another file is chosen.
      let uploadId: string | undefined = typeof initial === 'string' ? initial : undefined;
      if (uploadId) replace(preview, h('span', { className: 'hint' }, 'Using the input image of the output you remix.'));
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
        // A seed may be -1 ("random", the seed preset's default) whatever its min says: the server draws one.
        min: parameter.type === 'seed' ? -1 : parameter.min,
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

/** The generate page with a template chosen and its form filled in from an earlier run's parameters. */
export const remixPath = (templateId: string, parameters: Record<string, unknown>): string =>
  `/?${new URLSearchParams({ template: templateId, parameters: JSON.stringify(parameters) }).toString()}`;

function readRemix(search: URLSearchParams): { templateId: string; parameters: Record<string, unknown> } | null {
  const templateId = search.get('template');
  if (!templateId) return null;
  try {
    const parsed: unknown = JSON.parse(search.get('parameters') ?? '{}');
    return { templateId, parameters: parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {} };
  } catch {
    return { templateId, parameters: {} };
  }
}

export async function generatePage(ctx: Ctx, main: HTMLElement): Promise<() => void> {
  const search = new URLSearchParams(location.search);
  const denied = search.get('denied') === 'admin';
  const remix = readRemix(search);
  const templates = await api.get<Template[]>('/templates');
  const remixed = remix ? templates.find((template) => template.id === remix.templateId) : undefined;
  const picker = h(
    'select',
    { name: 'template' },
    templates.map((template) => h('option', { value: template.id, selected: template === remixed }, `${template.name} (${template.cost} coins, ${template.outputType})`)),
  );
  const remixNote = remix
    ? h('p', { className: remixed ? 'notice info' : 'notice', role: 'status' }, remixed ? `Remixing an output of ${remixed.name}: its parameters are filled in.` : 'The template of that output is no longer available.')
    : null;
  const description = h('p', { className: 'hint' });
  const fields = h('div', { className: 'fields' });
  const cost = h('p', { className: 'cost', 'data-testid': 'cost' });
  const status = statusLine('status error');
  const submit = h('button', { type: 'submit' }, 'Generate');
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
    // The remixed values fill the form once, for the remixed template only.
    const values = template && template === remixed ? remix!.parameters : {};
    replace(
      fields,
      (template?.parameters ?? []).map((parameter) => {
        const made = control(parameter, Object.hasOwn(values, parameter.key) ? values[parameter.key] : parameter.default);
        readers.push({ key: parameter.key, read: made.read, ready: made.ready });
        const range = parameter.min !== undefined || parameter.max !== undefined ? `From ${parameter.type === 'seed' ? -1 : (parameter.min ?? '…')} to ${parameter.max ?? '…'}.` : '';
        const hint = (isColour(parameter) ? ['Pick a colour.'] : [parameter.description, range]).filter(Boolean).join(' ');
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
  const names = new Map(templates.map((template) => [template.id, template.name]));
  const jobs = await jobsPanel({
    socket: ctx.socket,
    templateName: (id) => (id && names.get(id)) || 'Unavailable template',
    onOutputs: addOutputs,
    onEnded: () => void ctx.refreshUser().then(showCost).catch(() => undefined),
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
            jobs.add(job);
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
    remixNote,
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
    h('div', { className: 'columns' }, form, h('section', { className: 'card', 'aria-labelledby': 'jobs-title' }, h('h2', { id: 'jobs-title' }, 'Jobs'), jobs.element)),
    h('section', { 'aria-labelledby': 'gallery-title' }, h('h2', { id: 'gallery-title' }, 'This session'), galleryList),
  );
  showTemplate();
  renderGallery();
  return jobs.dispose;
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
