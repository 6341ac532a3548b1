import { api, errorText } from '../api.ts';
import { field, h, replace } from '../dom.ts';

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

/** A colour travels as one integer 0xRRGGBB: an integer parameter named like a colour, ranging over exactly that. */
export const isColour = (parameter: Parameter): boolean =>
  parameter.type === 'integer' && /colou?r/i.test(parameter.key) && (parameter.min ?? 0) === 0 && parameter.max === 0xffffff;
export const colourToHex = (value: number): string => `#${Math.trunc(value).toString(16).padStart(6, '0').slice(-6)}`;
export const hexToColour = (hex: string): number => Number.parseInt(hex.replace('#', ''), 16);

/** Whether the control holds a value to send: it started with one, or the user changed it. */
function changedBy(input: HTMLInputElement, set: boolean): () => boolean {
  let changed = set;
  input.addEventListener('input', () => (changed = true));
  return () => changed;
}

/** The control of one parameter, starting at `initial` (a remixed value) or the parameter's default. */
function control(parameter: Parameter, initial: unknown = parameter.default): { element: HTMLElement; read(): unknown; ready(): Promise<void> } {
  // A colour or a checkbox always shows a value; without a default or a remixed value it is sent only once the user
  // changed it, so the workflow's own value stands (the server leaves an optional parameter that is not sent alone).
  const set = initial !== undefined;
  if (isColour(parameter)) {
    const input = h('input', { type: 'color', name: parameter.key, className: 'colour', value: colourToHex(typeof initial === 'number' ? initial : 0) });
    const touched = changedBy(input, set);
    return { element: input, read: () => (touched() ? hexToColour(input.value) : undefined), ready: async () => undefined };
  }
  switch (parameter.type) {
    case 'boolean': {
      const input = h('input', { type: 'checkbox', name: parameter.key, checked: initial === true });
      const touched = changedBy(input, set);
      return { element: input, read: () => (touched() ? input.checked : undefined), ready: async () => undefined };
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
      // A remix reuses the earlier input (an upload's or an output's id) until another file is chosen: the empty
      // file field does not hold the form back then.
      let uploadId: string | undefined = typeof initial === 'string' ? initial : undefined;
      const input = h('input', { type: 'file', name: parameter.key, accept: 'image/png,image/jpeg,image/webp', required: parameter.required && !uploadId });
      const preview = h('span', { className: 'thumb' });
      if (uploadId) replace(preview, h('span', { className: 'hint' }, 'Using the input image of the output you remix.'));
      // The upload of the file chosen last: an earlier, slower one neither sets the id nor fails the form.
      let chosen = 0;
      let pending: Promise<void> = Promise.resolve();
      input.addEventListener('change', () => {
        const file = input.files?.[0];
        const mine = ++chosen;
        uploadId = undefined;
        input.required = Boolean(parameter.required);
        pending = Promise.resolve();
        replace(preview);
        if (!file) return;
        const form = new FormData();
        form.append('file', file);
        const upload = api.upload<{ id: string }>('/uploads', form);
        pending = upload.then(
          (made) => {
            if (mine !== chosen) return;
            uploadId = made.id;
            const url = URL.createObjectURL(file);
            replace(preview, h('img', { src: url, alt: `Chosen ${parameter.label ?? parameter.key}`, on: { load: () => URL.revokeObjectURL(url) } }));
          },
          (failure: unknown) => {
            if (mine !== chosen) return;
            // Said at once, beside the field; a submit with this file still fails with the same reason.
            replace(preview, h('span', { className: 'hint error', role: 'alert' }, errorText(failure)));
            throw failure;
          },
        );
        // Read at submit (ready); not an unhandled rejection before that.
        pending.catch(() => undefined);
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

/** The fields of a template's parameters, and what they hold: the Generate page's form, and an administrator's test run (ADR 043). */
export function parameterFields(parameters: Parameter[], values: Record<string, unknown> = {}): { element: HTMLElement; read(): Promise<Record<string, unknown>> } {
  const readers: { key: string; read(): unknown; ready(): Promise<void> }[] = [];
  const element = h('div', { className: 'fields' });
  replace(
    element,
    parameters.map((parameter) => {
      const made = control(parameter, Object.hasOwn(values, parameter.key) ? values[parameter.key] : parameter.default);
      readers.push({ key: parameter.key, read: made.read, ready: made.ready });
      const range = parameter.min !== undefined || parameter.max !== undefined ? `From ${parameter.type === 'seed' ? -1 : (parameter.min ?? '…')} to ${parameter.max ?? '…'}.` : '';
      const hint = (isColour(parameter) ? ['Pick a colour.'] : [parameter.description, range]).filter(Boolean).join(' ');
      return wrap(parameter, made.element, hint);
    }),
  );
  return {
    element,
    /** Waits for uploads still in flight, then the values set (a field left empty is left out). */
    async read() {
      await Promise.all(readers.map((reader) => reader.ready()));
      const parameters: Record<string, unknown> = {};
      for (const reader of readers) {
        const value = reader.read();
        if (value !== undefined) parameters[reader.key] = value;
      }
      return parameters;
    },
  };
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
