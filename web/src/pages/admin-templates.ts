import { api, ApiError } from '../api.ts';
import { field, h, replace, statusLine } from '../dom.ts';
import type { Ctx } from '../main.ts';

type Workflow = Record<string, { class_type: string; inputs: Record<string, unknown>; _meta?: { title?: string } }>;

interface MapItem {
  key: string;
  type: string;
  node_id: string;
  input_name: string;
  label?: string;
  options?: (string | number)[];
  preset?: string;
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
  version: number;
}

interface Preset {
  key: string;
  type: string;
  label: string;
  description: string;
  requiredFor: string[];
}

const TYPES = ['string', 'integer', 'number', 'boolean', 'enum', 'image', 'seed'];
const isLink = (value: unknown) => Array.isArray(value) && value.length === 2 && typeof value[0] === 'string';
const errorText = (failure: unknown) => (failure instanceof ApiError ? failure.message : 'The service could not be reached.');

export async function adminTemplatesPage(ctx: Ctx, main: HTMLElement): Promise<void> {
  const categories = await api.get<string[]>('/workflow-templates/categories');
  const list = h('tbody');
  const status = statusLine();
  const editor = h('div');

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
          h('td', null, template.isActive ? 'active' : 'inactive'),
          h('td', null, `${Object.keys(template.parameter_map).length} parameters`),
          h(
            'td',
            null,
            h('button', { type: 'button', className: 'secondary', on: { click: () => void openMap(template) } }, `Edit parameters of ${template.name}`),
          ),
        ),
      ),
    );
  }

  // Step 1: the workflow and what the template is.
  const name = h('input', { type: 'text', required: true, maxLength: 100 });
  const description = h('input', { type: 'text', maxLength: 500 });
  const category = h('select', null, categories.map((c) => h('option', { value: c }, c)));
  const outputType = h('select', null, h('option', { value: 'image' }, 'image'), h('option', { value: 'video' }, 'video'));
  const cost = h('input', { type: 'number', min: 0, step: 1, value: '1', required: true });
  const workflowText = h('textarea', { rows: 10, required: true, spellcheck: false, className: 'code' });
  const workflowFile = h('input', { type: 'file', accept: 'application/json,.json' });
  workflowFile.addEventListener('change', async () => {
    const file = workflowFile.files?.[0];
    if (file) workflowText.value = await file.text();
  });
  const createStatus = statusLine('status error');
  const createForm = h(
    'form',
    {
      className: 'card',
      'aria-labelledby': 'create-title',
      on: {
        submit: async (event: SubmitEvent) => {
          event.preventDefault();
          createStatus.textContent = '';
          let workflow: unknown;
          try {
            workflow = JSON.parse(workflowText.value);
          } catch {
            createStatus.textContent = 'The workflow is not valid JSON (export it from ComfyUI with "Save (API format)").';
            return;
          }
          try {
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
          } catch (failure) {
            createStatus.textContent = errorText(failure);
          }
        },
      },
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

    const guess = (key: string): { node_id: string; input_name: string } => {
      for (const [id, node] of nodes) {
        if (key in node.inputs && !isLink(node.inputs[key])) return { node_id: id, input_name: key };
      }
      return { node_id: '', input_name: '' };
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
    for (const item of existing) addRow({ ...item }, presets.some((p) => p.key === item.preset && p.requiredFor.includes(template.category)));
    for (const preset of presets) {
      if (preset.requiredFor.includes(template.category) && !used().has(preset.key)) addRow({ key: preset.key, type: preset.type, preset: preset.key, ...guess(preset.key) }, true);
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
            const map: Record<string, MapItem> = {};
            for (const { item } of rows) {
              const { class_type: _classType, ...rest } = item;
              map[item.key] = item.preset ? { ...rest, key: item.key, type: item.type } : rest;
            }
            try {
              const saved = await api.put<AdminTemplate>(`/workflow-templates/${template.id}/parameter-map`, map);
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
    replace(editor, form);
    form.scrollIntoView();
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
  void ctx;
}
