import { api, errorText, type User } from '../api.ts';
import { coins, field, h, replace, statusLine, uuid } from '../dom.ts';
import type { Ctx } from '../main.ts';
import { mediaFor, renewViewUrl, type HistoryItem } from '../media.ts';
import { jobsPanel, type Job } from './jobs-panel.ts';
import { parameterFields, type Parameter } from './parameter-form.ts';

export { colourToHex, hexToColour, isColour, type Parameter } from './parameter-form.ts';

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
const NOT_ENOUGH = 'Not enough coins for this template.';
/** Outputs made in this browser session by the user signed in (kept while the page lives), newest first. */
let gallery: { userId: string | undefined; items: HistoryItem[] } = { userId: undefined, items: [] };

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
  // Another user signed in in this tab: the outputs of the one before are not theirs to see.
  if (gallery.userId !== ctx.user?.id) gallery = { userId: ctx.user?.id, items: [] };
  const search = new URLSearchParams(location.search);
  const denied = search.get('denied') === 'admin';
  const remix = readRemix(search);
  const templates = await api.get<Template[]>('/templates');
  const remixed = remix ? templates.find((template) => template.id === remix.templateId) : undefined;
  const picker = h(
    'select',
    { name: 'template' },
    templates.map((template) => h('option', { value: template.id, selected: template === remixed }, `${template.name} (${coins(template.cost)}, ${template.outputType})`)),
  );
  const remixNote = remix
    ? h('p', { className: remixed ? 'notice info' : 'notice', role: 'status' }, remixed ? `Remixing an output of ${remixed.name}: its parameters are filled in.` : 'The template of that output is no longer available.')
    : null;
  const description = h('p', { className: 'hint' });
  const fields = h('div');
  const cost = h('p', { className: 'cost', 'data-testid': 'cost' });
  const status = statusLine('status error');
  const submit = h('button', { type: 'submit' }, 'Generate');
  const galleryList = h('ul', { className: 'grid', 'aria-label': 'Outputs of this session' });
  let inputs: ReturnType<typeof parameterFields> | null = null;
  // A submit in flight keeps Generate disabled, whatever a job ending meanwhile does to the balance.
  let submitting = false;

  const current = () => templates.find((template) => template.id === picker.value);
  const showCost = () => {
    const template = current();
    const balance = ctx.user?.coinBalance ?? 0;
    cost.textContent = template ? `Costs ${coins(template.cost)}; you have ${balance}.` : '';
    submit.disabled = submitting || !template || template.cost > balance;
    if (template && template.cost > balance) status.textContent = NOT_ENOUGH;
    // A refund or a top-up made it payable: the warning goes (any other message stays).
    else if (status.textContent === NOT_ENOUGH) status.textContent = '';
  };
  const showTemplate = () => {
    const template = current();
    status.textContent = '';
    description.textContent = template?.description ?? '';
    // The remixed values fill the form once, for the remixed template only.
    const values = template && template === remixed ? remix!.parameters : {};
    inputs = parameterFields(template?.parameters ?? [], values);
    replace(fields, inputs.element);
    showCost();
  };
  // Shown once the tab has an output: an empty heading says nothing.
  const gallerySection = h('section', { 'aria-labelledby': 'gallery-title' }, h('h2', { id: 'gallery-title' }, 'This session'), galleryList);
  const renderGallery = () => {
    gallerySection.hidden = gallery.items.length === 0;
    replace(
      galleryList,
      gallery.items.map((item) => h('li', { className: 'tile' }, mediaFor(item, `Output ${item.fileName}`, renewViewUrl), h('span', { className: 'hint' }, item.fileName))),
    );
  };
  const addOutputs = (outputs: HistoryItem[]) => {
    for (const output of outputs) if (!gallery.items.some((known) => known.id === output.id)) gallery.items.unshift(output);
    gallery.items.splice(GALLERY_LIMIT);
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
          submitting = true;
          submit.disabled = true;
          status.textContent = '';
          try {
            const parameters = (await inputs?.read()) ?? {};
            const requestId = uuid();
            const job = await api.post<Job>('/generate', { templateId: template.id, parameters, requestId }, requestId);
            jobs.add(job);
          } catch (failure) {
            status.textContent = errorText(failure);
            submitting = false;
            showCost();
            return;
          }
          // The job is made: a balance that cannot be read now is read again when a job ends, not told as a failed submit.
          await ctx.refreshUser().catch(() => undefined);
          submitting = false;
          showCost();
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
    gallerySection,
  );
  showTemplate();
  renderGallery();
  return jobs.dispose;
}

export type { User };
