import { api, errorText } from '../api.ts';
import { field, h, replace, statusLine, type Child } from '../dom.ts';
import type { Ctx } from '../main.ts';
import { guessLocation, hasNegativeText, type Workflow } from './template-prefill.ts';
import { testRunCard } from './template-test-run.ts';

interface MapItem {
  key: string;
  type: string;
  node_id: string;
  input_name: string;
  label?: string;
  options?: (string | number)[];
  preset?: string;
  min?: number;
  max?: number;
  default?: string | number | boolean;
  [more: string]: unknown;
}

interface AdminTemplate {
  id: string;
  name: string;
  description: string | null;
  category: string;
  workflow: Workflow;
  parameter_map: Record<string, MapItem>;
  cost: number;
  outputType: 'image' | 'video';
  isActive: boolean;
  status: 'draft' | 'published';
  requiredParameters: string[];
  version: number;
}

interface Preset {
  key: string;
  type: string;
  label: string;
  description: string;
}

const TYPES = ['string', 'integer', 'number', 'boolean', 'enum', 'image', 'seed'];
const isLink = (value: unknown) => Array.isArray(value) && value.length === 2 && typeof value[0] === 'string';

/** A card form that parses its workflow JSON before `save` runs; a refusal of either shows in `line`. */
const workflowForm = (
  titleId: string,
  text: HTMLTextAreaElement,
  line: HTMLElement,
  invalid: string,
  save: (workflow: unknown) => Promise<void>,
  ...children: Child[]
): HTMLFormElement =>
  h(
    'form',
    {
      className: 'card',
      'aria-labelledby': titleId,
      on: {
        submit: async (event: SubmitEvent) => {
          event.preventDefault();
          line.textContent = '';
          let workflow: unknown;
          try {
            workflow = JSON.parse(text.value);
          } catch {
            line.textContent = invalid;
            return;
          }
          try {
            await save(workflow);
          } catch (failure) {
            line.textContent = errorText(failure);
          }
        },
      },
    },
    ...children,
  );

export async function adminTemplatesPage(ctx: Ctx, main: HTMLElement): Promise<() => void> {
  const categories = await api.get<string[]>('/workflow-templates/categories');
  const list = h('tbody');
  const status = statusLine();
  const editor = h('div');
  /** What the card in the editor must stop when it goes (a test run's socket listener). */
  let closeEditor = () => {};
  const showInEditor = (card: HTMLElement, dispose = () => {}): void => {
    closeEditor();
    closeEditor = dispose;
    replace(editor, card);
    card.scrollIntoView();
  };

  async function loadList(): Promise<void> {
    const templates = await api.get<AdminTemplate[]>('/workflow-templates');
    replace(
      list,
      templates.map((template) =>
        h(
          'tr',
          null,
          h('td', null, template.name),
          h('td', null, template.category),
          h('td', null, template.outputType),
          h('td', null, String(template.cost)),
          h('td', null, `v${template.version}`),
          h('td', null, `${template.status}, ${template.isActive ? 'active' : 'inactive'}`),
          h('td', null, `${Object.keys(template.parameter_map).length} parameters`),
          h('td', { className: 'actions' }, actionsOf(template)),
        ),
      ),
    );
  }

  /** Runs one change of a template, then shows the list as it is now (or why the change was refused). */
  async function change(what: () => Promise<unknown>, done: string): Promise<void> {
    let message = done;
    let failed = false;
    try {
      await what();
    } catch (failure) {
      failed = true;
      message = errorText(failure);
    }
    // The list first, then the announcement: what the status says is already on screen.
    try {
      await loadList();
    } catch (failure) {
      message = `${message} The list could not be read again: ${errorText(failure)}`;
      failed = true;
    }
    status.className = failed ? 'status error' : 'status';
    status.textContent = message;
  }

  function actionsOf(template: AdminTemplate): HTMLElement[] {
    // The row shows the template's name; each button's accessible name says it again, for a button heard alone.
    const button = (action: string, named: string, run: () => void, className = 'secondary') =>
      h('button', { type: 'button', className, 'aria-label': `${action}${named}`, on: { click: run } }, action);
    const name = template.name;
    const path = `/workflow-templates/${template.id}`;
    return [
      button('Edit parameters', ` of ${name}`, () => void openMap(template)),
      button('Edit workflow', ` of ${name}`, () => openWorkflow(template)),
      button('Test run', ` ${name}`, () => {
        const card = testRunCard(ctx, template);
        showInEditor(card.element, card.dispose);
      }),
      template.status === 'draft'
        ? button('Publish', ` ${name}`, () => void change(() => api.post(`/templates/${template.id}/publish`), `Published ${name}: users can now run it.`))
        : button('Back to draft', `: ${name}`, () => void change(() => api.post(`/templates/${template.id}/unpublish`), `${name} is a draft again: users no longer see it.`)),
      template.isActive
        ? button('Deactivate', ` ${name}`, () => void change(() => api.patch(path, { isActive: false }), `Deactivated ${name}.`))
        : button('Activate', ` ${name}`, () => void change(() => api.patch(path, { isActive: true }), `Activated ${name}.`)),
      button('Delete', ` ${name}`, () => {
        if (window.confirm(`Delete ${name}? Jobs that ran it keep their history.`)) void change(() => api.delete(path), `Deleted ${name}.`);
      }, 'danger'),
    ];
  }

  /** A new workflow for a template: saved as a new version; jobs that ran older versions keep them. */
  function openWorkflow(template: AdminTemplate): void {
    const text = h('textarea', { rows: 12, required: true, spellcheck: false, className: 'code', value: JSON.stringify(template.workflow, null, 2) });
    const editStatus = statusLine('status error');
    const form = workflowForm('workflow-title', text, editStatus, 'The workflow is not valid JSON.', async (workflow) => {
      const saved = await api.patch<AdminTemplate>(`/workflow-templates/${template.id}`, { workflow });
      status.className = 'status';
      status.textContent = `Saved the workflow of ${saved.name}: version ${saved.version}.`;
      replace(editor);
      await loadList();
    },
    h('h2', { id: 'workflow-title' }, `Workflow of ${template.name} (version ${template.version})`),
    field('Workflow (ComfyUI API format JSON)', text, 'Saving a different workflow makes a new version; the parameter map must still fit it.'),
    editStatus,
    h('button', { type: 'submit' }, 'Save workflow'));
    showInEditor(form);
  }

  // Step 1: the workflow and what the template is.
  const name = h('input', { type: 'text', required: true, maxLength: 100 });
  const description = h('input', { type: 'text', maxLength: 500 });
  const category = h('select', null, categories.map((c) => h('option', { value: c }, c)));
  const outputType = h('select', null, h('option', { value: 'image' }, 'image'), h('option', { value: 'video' }, 'video'));
  // defaultValue, not value: form.reset() after a create restores the default (value alone reset it to blank).
  const cost = h('input', { type: 'number', min: 0, step: 1, defaultValue: '1', required: true });
  const workflowText = h('textarea', { rows: 10, required: true, spellcheck: false, className: 'code' });
  const workflowFile = h('input', { type: 'file', accept: 'application/json,.json' });
  workflowFile.addEventListener('change', async () => {
    const file = workflowFile.files?.[0];
    if (file) workflowText.value = await file.text();
  });
  const createStatus = statusLine('status error');
  const createForm = workflowForm(
    'create-title',
    workflowText,
    createStatus,
    'The workflow is not valid JSON (export it from ComfyUI with "Save (API format)").',
    async (workflow) => {
      const created = await api.post<AdminTemplate>('/workflow-templates', {
        name: name.value,
        description: description.value || undefined,
        category: category.value,
        outputType: outputType.value,
        cost: Number(cost.value),
        workflow,
      });
      createForm.reset();
      await loadList();
      await openMap(created);
    },
    h('h2', { id: 'create-title' }, 'New template, step 1: the workflow'),
    field('Name', name),
    field('Description', description),
    field('Category', category),
    field('Output', outputType),
    field('Cost in coins', cost),
    field('Workflow (ComfyUI API format JSON)', workflowText, 'Paste it here, or choose the exported file below.'),
    field('Workflow file', workflowFile),
    createStatus,
    h('button', { type: 'submit' }, 'Create and map parameters'),
  );

  // Step 2: the parameter map, built by picking nodes and inputs from the graph.
  async function openMap(template: AdminTemplate): Promise<void> {
    const presets = await api.get<Preset[]>(`/workflow-templates/parameter-presets?category=${encodeURIComponent(template.category)}`);
    const nodes = Object.entries(template.workflow);
    interface Row {
      item: MapItem;
      locked: boolean;
      element: HTMLElement;
    }
    const rows: Row[] = [];
    const rowList = h('ol', { className: 'map-rows' });
    const mapStatus = statusLine('status error');
    const presetPicker = h('select');
    const addPreset = h('button', { type: 'button', className: 'secondary' }, 'Add preset');
    const used = () => new Set(rows.map((row) => row.item.preset).filter(Boolean));

    const refreshPicker = () => {
      const taken = used();
      const free = presets.filter((preset) => !taken.has(preset.key));
      replace(presetPicker, free.map((preset) => h('option', { value: preset.key }, `${preset.label} (${preset.key}, ${preset.type})`)));
      addPreset.disabled = free.length === 0;
    };

    const guess = (key: string) => guessLocation(template.workflow, key) ?? { node_id: '', input_name: '' };
    const required = new Set(template.requiredParameters);

    /** Min, max and default of a custom parameter, each checked against the others as it is typed (the server checks too). */
    const rangeFields = (item: MapItem): HTMLElement[] => {
      const number = (label: string, key: 'min' | 'max') =>
        h('input', { type: 'number', step: 'any', value: item[key] === undefined ? '' : String(item[key]), 'aria-label': `${label} of ${item.key || 'custom parameter'}` });
      const min = number('Min', 'min');
      const max = number('Max', 'max');
      const fallback = h('input', { type: 'text', value: item.default === undefined ? '' : String(item.default) });
      const check = () => {
        const read = (input: HTMLInputElement) => (input.value.trim() === '' ? undefined : Number(input.value));
        item.min = read(min);
        item.max = read(max);
        const text = fallback.value.trim();
        const numeric = ['integer', 'number', 'seed'].includes(item.type);
        item.default = text === '' ? undefined : numeric ? Number(text) : item.type === 'boolean' ? text === 'true' : text;
        const low = item.min ?? -Infinity;
        const high = item.max ?? Infinity;
        min.setCustomValidity(low > high ? 'Min must not be above max.' : '');
        fallback.setCustomValidity(numeric && typeof item.default === 'number' && (Number.isNaN(item.default) || item.default < low || item.default > high) ? 'The default must lie between min and max.' : '');
      };
      for (const input of [min, max, fallback]) input.addEventListener('input', check);
      return [field('Min', min), field('Max', max), field('Default', fallback)];
    };

    const addRow = (item: MapItem, locked: boolean) => {
      const node = h(
        'select',
        { required: true },
        h('option', { value: '' }, 'Choose a node'),
        nodes.map(([id, n]) => h('option', { value: id, selected: id === item.node_id }, `${id} · ${n.class_type}${n._meta?.title ? ` · ${n._meta.title}` : ''}`)),
      );
      const input = h('select', { required: true });
      const fillInputs = () => {
        const inputs = Object.entries(template.workflow[node.value]?.inputs ?? {}).filter(([, value]) => !isLink(value));
        replace(
          input,
          h('option', { value: '' }, 'Choose an input'),
          inputs.map(([inputName, value]) => h('option', { value: inputName, selected: inputName === item.input_name }, `${inputName} (now ${JSON.stringify(value)})`)),
        );
      };
      node.addEventListener('change', () => {
        item.node_id = node.value;
        item.input_name = '';
        fillInputs();
      });
      input.addEventListener('change', () => (item.input_name = input.value));
      fillInputs();
      const row: Row = { item, locked, element: h('li', { className: 'map-row' }) };
      const keyControls = item.preset
        ? [h('strong', null, `${item.key}`), h('span', { className: 'hint' }, ` ${item.type}, from preset${locked ? ', required by the category' : ''}`)]
        : [
            field('Key', h('input', { type: 'text', required: true, pattern: '[A-Za-z_][A-Za-z0-9_]*', value: item.key, on: { input: (e: Event) => (item.key = (e.target as HTMLInputElement).value) } })),
            field('Type', h('select', { on: { change: (e: Event) => (item.type = (e.target as HTMLSelectElement).value) } }, TYPES.map((t) => h('option', { value: t, selected: t === item.type }, t)))),
            field('Label', h('input', { type: 'text', value: item.label ?? '', on: { input: (e: Event) => (item.label = (e.target as HTMLInputElement).value || undefined) } })),
            ...rangeFields(item),
            field(
              'Options (enum, comma-separated)',
              h('input', {
                type: 'text',
                value: (item.options ?? []).join(', '),
                on: { input: (e: Event) => {
                  const text = (e.target as HTMLInputElement).value.trim();
                  item.options = text ? text.split(',').map((option) => option.trim()) : undefined;
                } },
              }),
            ),
          ];
      const title = item.preset ? `parameter ${item.key}` : 'custom parameter';
      node.setAttribute('aria-label', `Node for ${title}`);
      input.setAttribute('aria-label', `Input for ${title}`);
      replace(
        row.element,
        h('div', { className: 'map-key' }, keyControls),
        h('div', { className: 'inline' }, node, input),
        locked
          ? null
          : h(
              'button',
              {
                type: 'button',
                className: 'link',
                on: { click: () => {
                  rows.splice(rows.indexOf(row), 1);
                  row.element.remove();
                  refreshPicker();
                } },
              },
              `Remove ${item.key || 'parameter'}`,
            ),
      );
      rows.push(row);
      rowList.append(row.element);
      refreshPicker();
    };

    const existing = Object.values(template.parameter_map);
    for (const item of existing) addRow({ ...item }, required.has(item.key));
    for (const preset of presets) {
      if (required.has(preset.key) && !used().has(preset.key)) addRow({ key: preset.key, type: preset.type, preset: preset.key, ...guess(preset.key) }, true);
    }
    const negative = presets.find((p) => p.key === 'negative_prompt');
    if (existing.length === 0 && negative && hasNegativeText(template.workflow) && !used().has(negative.key)) {
      addRow({ key: negative.key, type: negative.type, preset: negative.key, ...guess(negative.key) }, false);
    }
    addPreset.addEventListener('click', () => {
      const preset = presets.find((p) => p.key === presetPicker.value);
      if (preset && !used().has(preset.key)) addRow({ key: preset.key, type: preset.type, preset: preset.key, ...guess(preset.key) }, false);
    });
    refreshPicker();

    const save = h('button', { type: 'submit' }, 'Save parameter map');
    const form = h(
      'form',
      {
        className: 'card',
        'aria-labelledby': 'map-title',
        on: {
          submit: async (event: SubmitEvent) => {
            event.preventDefault();
            mapStatus.textContent = '';
            // Keyed by the parameter's key: a second row with the same key would silently replace the first.
            const keys = rows.map(({ item }) => item.key);
            const twice = keys.find((key, at) => keys.indexOf(key) !== at);
            if (twice !== undefined) {
              mapStatus.textContent = `Two parameters have the key "${twice}": give each its own.`;
              return;
            }
            const map: Record<string, MapItem> = {};
            for (const { item } of rows) {
              const { class_type: _classType, ...rest } = item;
              map[item.key] = item.preset ? { ...rest, key: item.key, type: item.type } : rest;
            }
            try {
              const saved = await api.put<AdminTemplate>(`/workflow-templates/${template.id}/parameter-map`, map);
              status.className = 'status';
              status.textContent = `Saved ${saved.name}: version ${saved.version}, ${Object.keys(saved.parameter_map).length} parameters.`;
              replace(editor);
              await loadList();
            } catch (failure) {
              mapStatus.textContent = errorText(failure);
            }
          },
        },
      },
      h('h2', { id: 'map-title' }, `Step 2: parameters of ${template.name}`),
      h('p', { className: 'hint' }, 'Pick the node and input each parameter sets. Parameters the category requires cannot be removed; each preset can be used once.'),
      rowList,
      h('div', { className: 'inline' }, field('Preset', presetPicker), addPreset),
      h('button', { type: 'button', className: 'secondary', on: { click: () => addRow({ key: '', type: 'string', node_id: '', input_name: '' }, false) } }, 'Add custom parameter'),
      mapStatus,
      save,
    );
    showInEditor(form);
  }

  replace(
    main,
    h('h1', null, 'Templates'),
    status,
    h(
      'table',
      null,
      h('caption', { className: 'sr-only' }, 'Workflow templates'),
      h('thead', null, h('tr', null, ['Name', 'Category', 'Output', 'Cost', 'Version', 'State', 'Map', 'Actions'].map((c) => h('th', { scope: 'col' }, c)))),
      list,
    ),
    editor,
    createForm,
  );
  await loadList();
  return () => closeEditor();
}
