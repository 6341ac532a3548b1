/** Small DOM helpers: the client builds every element through `h`, never through innerHTML. */
export type Child = Node | string | number | null | undefined | false | Child[];
type Attrs = Record<string, unknown> & { on?: Partial<Record<keyof HTMLElementEventMap, (event: any) => void>> };

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs | null = null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (name === 'on') {
      for (const [event, listener] of Object.entries(value as Record<string, EventListener>)) element.addEventListener(event, listener);
    } else if (value === false || value === null || value === undefined) {
      continue;
    } else if (name in element && name !== 'list' && name !== 'form' && !name.startsWith('aria-') && !name.startsWith('data-')) {
      (element as unknown as Record<string, unknown>)[name] = value;
    } else {
      element.setAttribute(name, value === true ? '' : String(value));
    }
  }
  append(element, children);
  return element;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function replace(parent: Node, ...children: Child[]): void {
  while (parent.firstChild) parent.removeChild(parent.firstChild);
  append(parent, children);
}

let nextId = 0;
/** A labelled form field: the label points at the control by id (a label can be children, e.g. with words only screen readers need). */
export function field(label: Child, control: HTMLElement, hint?: string): HTMLElement {
  control.id ||= `f${++nextId}`;
  const hintEl = hint ? h('small', { id: `${control.id}-hint`, className: 'hint' }, hint) : null;
  if (hintEl) control.setAttribute('aria-describedby', hintEl.id);
  return h('div', { className: control instanceof HTMLInputElement && control.type === 'checkbox' ? 'field check' : 'field' }, h('label', { htmlFor: control.id }, label), control, hintEl);
}

/**
 * Shows why the server refused a field's value under its control (made by `field`), marks the control invalid and has
 * it read the reason with its label; an empty message takes all of that away again.
 */
export function fieldError(control: HTMLElement, message: string): void {
  const id = `${control.id}-error`;
  document.getElementById(id)?.remove();
  const described = (control.getAttribute('aria-describedby') ?? '').split(' ').filter((other) => other && other !== id);
  if (message) {
    control.after(h('small', { id, className: 'hint error' }, message));
    described.unshift(id);
    control.setAttribute('aria-invalid', 'true');
  } else {
    control.removeAttribute('aria-invalid');
  }
  if (described.length > 0) control.setAttribute('aria-describedby', described.join(' '));
  else control.removeAttribute('aria-describedby');
}

/** Words that name what a control acts on for screen readers, where the row around it already shows it to the eye. */
export const unseen = (text: string): HTMLElement => h('span', { className: 'sr-only' }, text);

/** A count of coins: "1 coin", "2 coins". */
export const coins = (n: number): string => `${n} ${n === 1 ? 'coin' : 'coins'}`;

/** A status line read out by screen readers. */
export function statusLine(className = 'status'): HTMLElement {
  return h('p', { className, role: 'status', 'aria-live': 'polite' });
}

export function uuid(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A text to hand on (a new API key, a reset link): shown read-only, with a button that copies it. */
export function copyBox(value: string, names: { label: string; noun: string; button: string }): HTMLElement[] {
  const text = h('input', { type: 'text', readOnly: true, value, className: 'secret', 'aria-label': names.label });
  const copied = statusLine();
  const copy = h(
    'button',
    {
      type: 'button',
      on: {
        click: async () => {
          try {
            await navigator.clipboard.writeText(value);
            copied.textContent = 'Copied.';
          } catch {
            text.select();
            copied.textContent = `Select the ${names.noun} and copy it (the clipboard is not available here).`;
          }
        },
      },
    },
    names.button,
  );
  return [text, copy, copied];
}
