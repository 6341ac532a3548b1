import { type Edit, type Mutation, webGuard } from '../mutation.ts';

/**
 * The faults the web user audit found (web-user-form and web-user-history lists), fixed: each fix's guard, deleted in its
 * source (the runner builds the bundle the browser tests serve from it). Their tests are the audit's tests of the faults, and web-user-audit-fixes.test.ts for
 * the guards the fixes added.
 */
const FORM = ['tests/browser/web-user-audit-form.test.ts'];
const PAGES = ['tests/browser/web-user-audit-pages.test.ts'];
const HISTORY = ['tests/browser/web-user-audit-history.test.ts'];
const SESSION = ['tests/browser/web-user-audit-session.test.ts'];
const FIXES = ['tests/browser/web-user-audit-fixes.test.ts'];

const both =
  (prefix: string, source: string) =>
  (name: string, tests: string[], src: [find: string, replace: string], more: Edit[] = []): Mutation =>
    webGuard(`web-user-fixes: ${prefix}`, source, tests)(name, src, more);

const api = both('api', 'web/src/api.ts');
const generate = both('generate', 'web/src/pages/generate.ts');
const form = both('form', 'web/src/pages/parameter-form.ts');
const history = both('history', 'web/src/pages/history.ts');
const media = both('media', 'web/src/media.ts');
const viewer = both('viewer', 'web/src/viewer.ts');
const keys = both('api keys', 'web/src/pages/api-keys.ts');
const extras = both('connections', 'web/src/pages/extras.ts');
const users = both('users', 'web/src/pages/admin-users.ts');

export const MUTATIONS: Mutation[] = [
  // Requests: an error body that is not the service's.
  api('a proxy page as an error body is told as "could not be reached"', SESSION, [
    '  try {\n    const parsed = JSON.parse(text) as Partial<ErrorBody> | null;\n    if (typeof parsed?.message === \'string\') return parsed as ErrorBody;\n  } catch {\n    // Not JSON: told by its status below.\n  }\n',
    '  const parsed = JSON.parse(text) as Partial<ErrorBody> | null;\n  if (typeof parsed?.message === \'string\') return parsed as ErrorBody;\n',
  ]),
  api('a JSON error body without a message is taken as the service\'s', FIXES, ["if (typeof parsed?.message === 'string') return parsed as ErrorBody;", 'if (parsed) return parsed as ErrorBody;']),

  // The Generate page.
  generate('the outputs of the user before are shown to the next one in the tab', FORM, [
    '  if (gallery.userId !== ctx.user?.id) gallery = { userId: ctx.user?.id, items: [] };\n',
    '',
  ]),
  generate('"Not enough coins" stays once the template is payable', FORM, [
    "    else if (status.textContent === NOT_ENOUGH) status.textContent = '';\n",
    '',
  ]),
  generate('a job ending during a submit enables Generate again', FORM, [
    'submit.disabled = submitting || !template || template.cost > balance;',
    'submit.disabled = !template || template.cost > balance;',
  ]),
  generate('a refused submit keeps Generate disabled', [...FORM, 'tests/browser/web-client-audit.test.ts'], [
    '            status.textContent = errorText(failure);\n            submitting = false;\n            showCost();',
    '            status.textContent = errorText(failure);\n            showCost();',
  ]),
  generate('a balance that cannot be read after a submit fails the submit', FORM, [
    '          await ctx.refreshUser().catch(() => undefined);\n',
    '          await ctx.refreshUser();\n',
  ]),

  // The image field.
  form('an untouched colour without a default is sent (black)', FORM, [
    'read: () => (touched() ? hexToColour(input.value) : undefined)',
    'read: () => hexToColour(input.value)',
  ]),
  form('an untouched checkbox without a default is sent (false)', FORM, ['read: () => (touched() ? input.checked : undefined)', 'read: () => input.checked']),
  form('a checkbox or colour the user changed is not sent', FIXES, [
    "  input.addEventListener('input', () => (changed = true));\n",
    '',
  ]),
  form('a remixed image does not make the empty file field optional', FORM, ['required: parameter.required && !uploadId });', 'required: parameter.required });']),
  form('a cleared remixed image leaves the field optional', FIXES, ['        input.required = Boolean(parameter.required);\n', '']),
  form('an earlier, slower upload sets the image', FORM, ['          (made) => {\n            if (mine !== chosen) return;', '          (made) => {']),
  form("an earlier, slower upload's refusal is shown", FIXES, [
    '          (failure: unknown) => {\n            if (mine !== chosen) return;',
    '          (failure: unknown) => {',
  ]),
  form('a refused upload is not said until the submit', FIXES, [
    "            replace(preview, h('span', { className: 'hint error', role: 'alert' }, errorText(failure)));\n",
    '',
  ]),
  form("a refused upload's refusal stays after its file is taken away", FORM, ['        pending = Promise.resolve();\n        replace(preview);', '        replace(preview);']),
  form('a refused upload is an unhandled rejection until the submit', FIXES, ['        pending.catch(() => undefined);\n', '']),

  // History.
  history('a refused download link says nothing', HISTORY, [
    "        status.textContent = failure instanceof ApiError ? failure.message : 'Download failed.';\n        return;",
    '        return;',
  ]),
  history('Publish stays enabled while it is sent', HISTORY, [
    '      // One upload per press: the button stays disabled while it is asked for.\n      button.disabled = true;\n',
    '',
  ]),
  history('Publish stays disabled after an answer', HISTORY, ['      } finally {\n        button.disabled = false;\n      }\n    });', '      } finally {\n      }\n    });']),
  history('a delete that worked and a list not read again is told as a failed delete', HISTORY, ['      await load().catch((failure: unknown) => (status.textContent = `${item.fileName} deleted. The list could not be read again: ${errorText(failure)}`));', '      await load();']),
  history('a page that answers late replaces the page asked for after it', HISTORY, ['    if (mine !== loads) return;\n', '']),
  history('a page number past the end stays in the address', FIXES, [
    "      page = result.totalPages;\n      history.replaceState(null, '', `/history?page=${page}`);\n",
    '      page = result.totalPages;\n',
  ]),
  history('the tiles do not ask for a fresh view URL', FIXES, ['mediaFor(item, describe(item), renewViewUrl)', 'mediaFor(item, describe(item))']),

  // The view URL asked for again, and the viewer.
  media('a failed fresh view URL is asked for again and again', FIXES, ['    if (renewed) return;\n', '']),
  media('a fresh view URL is not kept for the next element', FIXES, ['        item.viewUrl = url;\n', '']),
  viewer('the viewer does not ask for a fresh view URL', FIXES, [
    'replace(this.stage, renewOnError(fullMedia(item, caption), item, this.renew));',
    'replace(this.stage, fullMedia(item, caption));',
  ]),

  // API keys.
  keys('"generate" is not ticked again after a key is made', PAGES, ["defaultChecked: scope === 'generate'", "checked: scope === 'generate'"]),
  keys('a refused revoke says nothing', PAGES, [
    '      status.textContent = errorText(failure);\n      return;\n    }\n    status.textContent = `Key "${key.name}" revoked.`;',
    '      return;\n    }\n    status.textContent = `Key "${key.name}" revoked.`;',
  ]),
  keys('Create key stays enabled while the key is made', PAGES, [
    '          // One key per press: the button stays disabled while the key is made.\n          create.disabled = true;\n',
    '',
  ]),
  keys('Create key stays disabled after a key is made', PAGES, ['          } finally {\n            create.disabled = false;\n          }', '          } finally {\n          }']),

  // Connections.
  extras('a refused disconnect says nothing', PAGES, [
    '                        status.textContent = errorText(failure);\n                        return;',
    '                        return;',
  ]),

  // Users: one adjustment, one key; a refused search or page is said.
  users("an administrator's own adjustment whose profile cannot be read again leaves the list unread", PAGES, [
    '            if (updated.id === ctx.user?.id) await ctx.refreshUser().catch(() => undefined);',
    '            if (updated.id === ctx.user?.id) await ctx.refreshUser();',
  ]),
  users('a refused search or page says nothing', PAGES, [
    'const show = () => load().catch((failure: unknown) => (status.textContent = errorText(failure)));',
    'const show = () => load();',
  ]),
  users('Apply stays enabled while an adjustment is sent', PAGES, ['            apply.disabled = true;\n', '']),
  users('Apply stays disabled after an answer', FIXES, ['            } finally {\n              apply.disabled = false;\n            }', '            } finally {\n            }']),
  users('each press is a new adjustment (a send that got no answer is made twice)', FIXES, [
    "{ amount: Number(amount.value), reason: 'admin_adjustment' }, key);",
    "{ amount: Number(amount.value), reason: 'admin_adjustment' }, uuid());",
  ]),
  users('the key of a success is used again', FIXES, ['            another();\n            const done', '            const done']),
  users('a success and a list not read again is told as a failed change', FIXES, ['await load().catch((failure: unknown) => (status.textContent = `${done} The list could not be read again: ${errorText(failure)}`));', 'await load();']),
  users('the key of a refusal is used again', FIXES, ['              if (failure instanceof ApiError) another();\n', '']),
  users('another amount is sent under the key of the one before', FIXES, [
    "    amount.addEventListener('input', another);\n    direction.addEventListener('change', another);\n",
    '',
  ]),
];
