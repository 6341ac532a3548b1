import { type Mutation, webGuard } from '../mutation.ts';

/**
 * The Generate page, its parameter form and the small user and admin pages (API keys, Connections, Chat, Users, Audit
 * log) of the web client (web/src/pages). Each guard is deleted in its source; the runner
 * builds the bundle the browser tests serve from it (webGuard).
 */
const FORM_TEST = ['tests/browser/web-user-audit-form.test.ts'];
const PAGES_TEST = ['tests/browser/web-user-audit-pages.test.ts'];

const both = (prefix: string, source: string, tests: string[]) => webGuard(`web-user-form: ${prefix}`, source, tests);

const form = both('form', 'web/src/pages/parameter-form.ts', FORM_TEST);
const generate = both('generate', 'web/src/pages/generate.ts', FORM_TEST);
const keys = both('api keys', 'web/src/pages/api-keys.ts', PAGES_TEST);
const extras = both('connections and chat', 'web/src/pages/extras.ts', PAGES_TEST);
const users = both('users', 'web/src/pages/admin-users.ts', PAGES_TEST);
const audit = both('audit log', 'web/src/pages/audit.ts', PAGES_TEST);

export const MUTATIONS: Mutation[] = [
  // The fields of the parameter form: labels, hints, limits, defaults.
  form('a required field is not labelled "(required)"', ["${parameter.required ? ' (required)' : ''}", '']),
  form("a seed's range is told from its min, not from -1", [
    "From ${parameter.type === 'seed' ? -1 : (parameter.min ?? '…')}",
    "From ${parameter.min ?? '…'}",
  ]),
  form("a parameter's description is not in its hint", ['[parameter.description, range]', '[range]']),
  form('a colour is not told to be picked', [
    "(isColour(parameter) ? ['Pick a colour.'] : [parameter.description, range])",
    '[parameter.description, range]',
  ]),
  form('a seed of -1 is held back by its min', ["min: parameter.type === 'seed' ? -1 : parameter.min", 'min: parameter.min']),
  form('a number takes whole steps only', ["step: parameter.type === 'number' ? 'any' : '1'", "step: '1'"]),
  form('an integer takes a fraction', ["step: parameter.type === 'number' ? 'any' : '1'", "step: 'any'"]),
  form('a number field has no max', [
    '        max: parameter.max,\n',
    '',
  ]),
  form('a required prompt may be left empty', [
    "h('textarea', { name: parameter.key, rows: 3, required: parameter.required }",
    "h('textarea', { name: parameter.key, rows: 3 }",
  ]),
  form('an integer named like a colour is a colour whatever its range', [
    '(parameter.min ?? 0) === 0 && parameter.max === 0xffffff',
    '(parameter.min ?? 0) === 0',
  ]),
  form('a colour is not padded to six digits', [".toString(16).padStart(6, '0').slice(-6)", '.toString(16).slice(-6)']),
  form('a checkbox defaulting to true starts unchecked', ['checked: initial === true', 'checked: false']),
  form("a choice's default is not selected", ['selected: option === initial', 'selected: false']),
  form("a text's default is not filled in", [
    "required: parameter.required, value: typeof initial === 'string' ? initial : ''",
    "required: parameter.required, value: ''",
  ]),
  form("a number's default is not filled in", ["value: typeof initial === 'number' ? String(initial) : ''", "value: ''"]),
  form('a remixed value is not filled in (the default is)', [
    'Object.hasOwn(values, parameter.key) ? values[parameter.key] : parameter.default',
    'parameter.default',
  ]),
  form('a prompt is a one-line field', ["const multiline = parameter.key.includes('prompt');", 'const multiline = false;']),
  // An image: its upload.
  form('Generate does not wait for an upload in flight', ['read: () => uploadId, ready: () => pending', 'read: () => uploadId, ready: async () => undefined']),
  form('a file taken away keeps its upload', ['        uploadId = undefined;\n        input.required', '        input.required']),

  // The Generate page: the remix, the notices, the status, the submit.
  generate('the remixed template is not chosen', ['selected: template === remixed }', 'selected: false }']),
  generate("a remix's values fill any template", ['const values = template && template === remixed ? remix!.parameters : {};', 'const values = remix?.parameters ?? {};']),
  generate('a remix whose template is gone is styled as filled in', ["className: remixed ? 'notice info' : 'notice'", "className: 'notice info'"]),
  generate('remixed values that are not JSON break the page', ['  } catch {\n    return { templateId, parameters: {} };', '  } catch (failure) {\n    throw failure;']),
  generate('a user sent away from an admin page is not told why', [
    "denied ? h('p', { className: 'notice', role: 'alert' }, 'That page is for administrators only.') : null",
    'null',
  ]),
  generate('no templates is not said', [
    "templates.length === 0 ? h('p', null, 'No templates are available yet.') : field('Template', picker)",
    "field('Template', picker)",
  ]),
  generate('Generate is offered without a template', ['submit.disabled = submitting || !template || template.cost > balance;', 'submit.disabled = submitting || (!!template && template.cost > balance);']),
  generate('a template the balance cannot pay is not said', [
    '    if (template && template.cost > balance) status.textContent = NOT_ENOUGH;',
    '    if (false as boolean) status.textContent = NOT_ENOUGH;',
  ]),
  generate("a template's description is not shown", ["description.textContent = template?.description ?? '';", "description.textContent = '';"]),
  generate('another template keeps the refusal of the last', ["    status.textContent = '';\n    description.textContent", '    description.textContent']),
  generate('a new submit keeps the last refusal', [
    "          submit.disabled = true;\n          status.textContent = '';",
    '          submit.disabled = true;',
  ]),
  generate('Generate can be pressed again while a submit is in flight', ['          submit.disabled = true;\n', '']),
  generate('the request id is not sent as the Idempotency-Key', [
    "{ templateId: template.id, parameters, requestId }, requestId)",
    '{ templateId: template.id, parameters, requestId })',
  ]),
  generate('a new job is not put in the Jobs panel', ['            jobs.add(job);\n', '']),
  generate('the balance is not read again after a submit', ['          await ctx.refreshUser().catch(() => undefined);\n', '']),
  generate('Generate stays disabled after a submit', ['          await ctx.refreshUser().catch(() => undefined);\n          submitting = false;\n          showCost();', '          await ctx.refreshUser().catch(() => undefined);']),
  generate('a service that cannot be reached is not said so', [
    '            status.textContent = errorText(failure);\n            submitting = false;',
    '            status.textContent = failure instanceof ApiError ? failure.message : String(failure);\n            submitting = false;',
  ]),
  generate('a job that ends does not price the template anew', ['ctx.refreshUser().then(showCost).catch', 'ctx.refreshUser().catch']),
  generate("an output shown already is shown again", [
    'if (!gallery.items.some((known) => known.id === output.id)) gallery.items.unshift(output);',
    'gallery.items.unshift(output);',
  ]),
  generate('the session gallery grows without bound', ['    gallery.items.splice(GALLERY_LIMIT);\n', '']),
  generate("a job's template is not named", ["(id && names.get(id)) || 'Unavailable template'", "'Unavailable template'"]),
  // API keys.
  keys('a user is offered the admin scope', ["...(ctx.user?.role === 'admin' ? ['admin'] : [])", "'admin'"]),
  keys('generate is not ticked at first', ["defaultChecked: scope === 'generate'", 'defaultChecked: false']),
  keys('an expiry date ends at its start, not at its end', ['T23:59:59Z', 'T00:00:00Z']),
  keys('a key without an expiry date is sent one', [
    'const expiresAt = expires.value ? new Date(`${expires.value}T23:59:59Z`).toISOString() : undefined;',
    'const expiresAt = new Date(`${expires.value}T23:59:59Z`).toISOString();',
  ]),
  keys('a refused key is not said', ['            status.textContent = errorText(failure);\n            return;\n          } finally {', '            return;\n          } finally {']),
  keys('the new key is not shown', ['          showOnce(made.key);\n', '']),
  keys('the form is not emptied after a key is made', ['          form.reset();\n', '']),
  keys('the list is not read again after a key is made', ['          form.reset();\n          await load();', '          form.reset();']),
  keys('a key is revoked without asking', [
    '    if (!confirm(`Revoke the key "${key.name}"? Callers using it are refused from their next request.`)) return;\n',
    '',
  ]),
  keys('the list is not read again after a revoke', [
    '    status.textContent = `Key "${key.name}" revoked.`;\n    await load();',
    '    status.textContent = `Key "${key.name}" revoked.`;',
  ]),
  keys('a revoke is not said', ['    status.textContent = `Key "${key.name}" revoked.`;\n', '']),
  keys('a key without an expiry is not said to never expire', ["when(key.expiresAt, 'never')", "when(key.expiresAt, '')"]),
  keys('a key never used is not said so', ["when(key.lastUsedAt, 'not yet')", "when(key.lastUsedAt, '')"]),
  keys('no keys is not said', ["keys.length === 0\n        ? h('tr', null, h('td', { colSpan: 7 }, 'No API keys yet.'))\n        :", '']),

  // Connections and Chat.
  extras('a connected platform is shown as not connected', ['connected.has(platform)', 'false']),
  extras("a disconnect names the platform as listed, not in lower case", [
    'await api.post(`/disconnect/${platform.toLowerCase()}`);',
    'await api.post(`/disconnect/${platform}`);',
  ]),
  extras('a connect link names the platform as listed, not in lower case', [
    'href: `/api/v1/connect/${platform.toLowerCase()}`',
    'href: `/api/v1/connect/${platform}`',
  ]),
  extras('a disconnect is not said', ['                      status.textContent = `${platformName(platform)} disconnected.`;\n', '']),
  extras('the connections are not read again after a disconnect', [
    '                      status.textContent = `${platformName(platform)} disconnected.`;\n                      await load();',
    '                      status.textContent = `${platformName(platform)} disconnected.`;',
  ]),
  extras('Send can be pressed again while the model answers', ['          send.disabled = true;\n', '']),
  extras('Send stays disabled after an answer', ['            send.disabled = false;\n', '']),
  extras('the message is kept after its answer', ["            prompt.value = '';\n", '']),
  extras('the question is not logged beside its answer', [
    "log.append(h('li', { className: 'me' }, text), h('li', null, response));",
    "log.append(h('li', null, response));",
  ]),
  extras("a refused chat's reason is not shown", [
    '            status.textContent = errorText(failure);\n          } finally {',
    "            status.textContent = 'The service could not be reached.';\n          } finally {",
  ]),
  extras('a chat that cannot reach the service does not say so', [
    '            status.textContent = errorText(failure);\n          } finally {',
    '            status.textContent = failure instanceof ApiError ? failure.message : String(failure);\n          } finally {',
  ]),

  // Users.
  users('a search keeps the page it was on', ['(event.preventDefault(), (page = 1), void show())', '(event.preventDefault(), void show())']),
  users('a search is not trimmed', ['q: search.value.trim()', 'q: search.value']),
  users('the pager does not change the page', [
    'pager(page, result.totalPages, (next) => ((page = next), void show()))',
    'pager(page, result.totalPages, () => void show())',
  ]),
  users('a deduction is sent as an addition', ['`/admin/coin/${direction.value}/${user.id}`', '`/admin/coin/add/${user.id}`']),
  users('the amount is sent as text', ['amount: Number(amount.value)', 'amount: amount.value']),
  users('an adjustment goes without an Idempotency-Key', ["{ amount: Number(amount.value), reason: 'admin_adjustment' }, key);", "{ amount: Number(amount.value), reason: 'admin_adjustment' });"]),
  users("the administrator's own balance is not read again", ['            if (updated.id === ctx.user?.id) await ctx.refreshUser().catch(() => undefined);\n', '']),
  users('the list is not read again after an adjustment', [
    '            await load().catch((failure: unknown) => (status.textContent = `${done} The list could not be read again: ${errorText(failure)}`));\n',
    '',
  ]),
  users('an adjustment is not said', ['            status.textContent = done;\n', '']),
  users("a refused adjustment's reason is not shown", [
    "status.textContent = failure instanceof ApiError ? failure.message : 'The change failed.';",
    "status.textContent = 'The change failed.';",
  ]),

  // The audit log.
  audit('an empty log is not said', [
    "result.items.length === 0\n        ? h('tr', null, h('td', { colSpan: 5 }, 'No entries yet.'))\n        :",
    '',
  ]),
  audit('an entry without a user shows "null"', ["entry.targetUserId ?? ''", 'String(entry.targetUserId)']),
  audit("an entry's details are not shown", ['JSON.stringify(entry.details)', "''"]),
  audit('the log is read 20 a page', ['query({ page, limit: 25 })', 'query({ page })']),
  audit('the pager does not change the page', [
    'pager(page, result.totalPages, (next) => ((page = next), void load()))',
    'pager(page, result.totalPages, () => void load())',
  ]),
];
