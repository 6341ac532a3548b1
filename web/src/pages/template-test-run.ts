import { api, errorText } from '../api.ts';
import { h, replace, statusLine } from '../dom.ts';
import type { Ctx } from '../main.ts';
import { mediaFor, type HistoryItem } from '../media.ts';
import type { ServerEvent } from '../socket.ts';
import type { Job } from './jobs-panel.ts';
import { parameterFields, type Parameter } from './parameter-form.ts';

/** What a test run needs of an administrator's template. */
export interface TestedTemplate {
  id: string;
  name: string;
  version: number;
  status: 'draft' | 'published';
  parameter_map: Record<string, { key?: string; type: string; label?: string; description?: string; default?: unknown; required?: boolean; min?: number; max?: number; options?: (string | number)[] }>;
}

type TestRun = Job & { templateVersion: number | null; textOutputs: { nodeId: string; text: string }[] };


/** The form's parameters: the map's items, as the catalogue gives them to users. */
const parametersOf = (map: TestedTemplate['parameter_map']): Parameter[] =>
  Object.entries(map).map(([key, item]) => ({
    key: item.key ?? key,
    type: item.type as Parameter['type'],
    label: item.label,
    description: item.description,
    default: item.default,
    required: item.required,
    min: item.min,
    max: item.max,
    options: item.options,
  }));

const outputsOf = (outputs: HistoryItem[], what: string): HTMLElement =>
  h('ul', { className: 'grid', 'aria-label': `Outputs of ${what}` }, outputs.map((item) => h('li', { className: 'tile' }, mediaFor(item, `Test output ${item.fileName}`), h('span', { className: 'hint' }, item.fileName))));

/**
 * An administrator's test run of a template (ADR 043): the Generate page's parameter form, a run followed live on
 * the socket (with Cancel), its outputs once done, and the template's recent test runs. Nobody is charged.
 */
export function testRunCard(ctx: Ctx, template: TestedTemplate): { element: HTMLElement; dispose(): void } {
  const inputs = parameterFields(parametersOf(template.parameter_map));
  const formStatus = statusLine('status error');
  const start = h('button', { type: 'submit' }, 'Start test run');
  const bar = h('progress', { max: 1, value: 0, 'aria-label': `Progress of the test run of ${template.name}` });
  const text = h('span', { className: 'job-status', role: 'status' });
  const cancel = h('button', { type: 'button', className: 'danger small', hidden: true }, 'Cancel test run');
  const live = h('div', { className: 'job', hidden: true }, bar, h('div', { className: 'job-line' }, text, cancel));
  const liveOutputs = h('div');
  const recent = h('ol', { className: 'test-runs', 'aria-label': `Recent test runs of ${template.name}` });
  let current: string | null = null;
  /** Events of jobs this card does not follow yet: a run's first events may come before its 202. */
  const early = new Map<string, ServerEvent[]>();

  const loadRecent = async (): Promise<void> => {
    const runs = await api.get<TestRun[]>(`/admin/templates/${template.id}/test-runs`);
    replace(
      recent,
      runs.length === 0
        ? h('li', { className: 'hint' }, 'No test runs yet.')
        : runs.map((run) => {
            const when = new Date(run.createdAt).toLocaleString();
            const what = `the test run of ${when}`;
            return h(
              'li',
              { className: 'job', 'data-job-id': run.id },
              h('div', { className: 'job-head' }, h('strong', null, `${when}, version ${run.templateVersion ?? '?'}`), h('span', { className: 'hint' }, run.status)),
              run.error ? h('span', { className: 'hint error' }, run.error.message) : null,
              run.textOutputs.length > 0 ? h('span', { className: 'job-prompt' }, run.textOutputs.map((out) => out.text).join(' · ')) : null,
              run.outputs.length > 0 ? outputsOf(run.outputs, what) : null,
            );
          }),
    );
  };
  const refresh = () => void loadRecent().catch(() => undefined);

  const ended = (message: string): void => {
    current = null;
    cancel.hidden = true;
    start.disabled = false;
    text.textContent = message;
    refresh();
  };
  const apply = (event: ServerEvent): void => {
    switch (event.type) {
      case 'job.started':
        text.textContent = 'Running';
        break;
      case 'job.status':
        text.textContent = String(event.text ?? '');
        break;
      case 'job.progress':
        bar.max = Number(event.max) || 1;
        bar.value = Number(event.value) || 0;
        break;
      case 'job.completed': {
        bar.value = bar.max;
        const outputs = (event.outputs as HistoryItem[] | undefined) ?? [];
        replace(liveOutputs, outputs.length > 0 ? outputsOf(outputs, 'this test run') : null);
        ended(`Done: ${outputs.length} output${outputs.length === 1 ? '' : 's'}.`);
        break;
      }
      case 'job.failed':
        ended(`Failed: ${(event.error as { message?: string } | undefined)?.message ?? 'unknown error'}`);
        break;
      case 'job.cancelled':
        ended('Cancelled.');
        break;
      case 'job.expired':
        ended('Expired before it started.');
        break;
    }
  };
  const off = ctx.socket.on((event) => {
    if (!event.jobId || !event.type.startsWith('job.')) return;
    if (event.jobId === current) return apply(event);
    const waiting = early.get(event.jobId) ?? [];
    early.set(event.jobId, [...waiting, event].slice(-50));
    if (early.size > 20) early.delete(early.keys().next().value!);
  });

  cancel.addEventListener('click', async () => {
    if (!current) return;
    cancel.disabled = true;
    try {
      await api.post(`/generate/${current}/cancel`);
    } catch (failure) {
      formStatus.textContent = errorText(failure);
    } finally {
      cancel.disabled = false;
    }
  });

  const form = h(
    'form',
    {
      'aria-labelledby': 'test-run-title',
      on: {
        submit: async (event: SubmitEvent) => {
          event.preventDefault();
          formStatus.textContent = '';
          start.disabled = true;
          try {
            const job = await api.post<TestRun>(`/admin/templates/${template.id}/test-runs`, { parameters: await inputs.read() });
            current = job.id;
            live.hidden = false;
            cancel.hidden = false;
            bar.max = 1;
            bar.value = 0;
            text.textContent = 'Queued';
            replace(liveOutputs);
            for (const seen of early.get(job.id) ?? []) if (current === job.id) apply(seen);
            early.delete(job.id);
            refresh();
          } catch (failure) {
            formStatus.textContent = errorText(failure);
            start.disabled = false;
          }
        },
      },
    },
    inputs.element,
    formStatus,
    start,
  );
  const element = h(
    'section',
    { className: 'card', 'aria-labelledby': 'test-run-title' },
    h('h2', { id: 'test-run-title' }, `Test run of ${template.name}`),
    h('p', { className: 'hint' }, `Version ${template.version}, ${template.status}. The run takes the real queue and engine; it is charged to nobody and stays out of your jobs and history.`),
    form,
    live,
    liveOutputs,
    h('h3', null, 'Recent test runs'),
    recent,
  );
  refresh();
  return { element, dispose: off };
}
