import { type Mutation, webGuard } from '../mutation.ts';

/**
 * The guards of the web client's shell (main.ts: routing, access to the admin pages, navigation; dom.ts) and of its
 * admin pages (admin-templates.ts, template-test-run.ts, admin-console.ts). Each guard is deleted in its
 * source; the runner builds the bundle the browser tests serve from it (webGuard).
 */
const SHELL = ['tests/browser/web-admin-audit-shell.test.ts'];
const TEMPLATES = ['tests/browser/web-admin-audit-templates.test.ts'];
const TEST_RUN = ['tests/browser/web-admin-audit-test-run.test.ts'];
const CONSOLE = ['tests/browser/web-admin-audit-console.test.ts'];
/** The faults the audit found, fixed. */
const FIXED = ['tests/browser/web-admin-audit-faults.test.ts'];

const both = (prefix: string, source: string, tests: string[]) => webGuard(`web-admin: ${prefix}`, source, tests);

const shell = both('shell', 'web/src/main.ts', SHELL);
const dom = both('dom', 'web/src/dom.ts', [...SHELL, ...TEMPLATES, ...TEST_RUN]);
const templates = both('templates', 'web/src/pages/admin-templates.ts', TEMPLATES);
const testRun = both('test run', 'web/src/pages/template-test-run.ts', TEST_RUN);
const console_ = both('console', 'web/src/pages/admin-console.ts', CONSOLE);
const fixedShell = both('shell', 'web/src/main.ts', FIXED);
const fixedTemplates = both('templates', 'web/src/pages/admin-templates.ts', FIXED);

export const MUTATIONS: Mutation[] = [
  // Who may open which page.
  shell(
    'a user is shown an admin page',
    ["  if (route?.access === 'admin' && ctx.user?.role !== 'admin') return ctx.navigate('/?denied=admin');\n", ''],
  ),
  shell(
    'a signed-out visitor is not sent to sign in',
    ["  if ((route?.access === 'user' || route?.access === 'admin') && !ctx.user) return ctx.navigate(`/login?next=${encodeURIComponent(location.pathname)}`);\n", ''],
  ),
  shell(
    'sign-in does not come back to the page asked for',
    ["if ((route?.access === 'user' || route?.access === 'admin') && !ctx.user) return ctx.navigate(`/login?next=${encodeURIComponent(location.pathname)}`);", "if ((route?.access === 'user' || route?.access === 'admin') && !ctx.user) return ctx.navigate('/login');"],
  ),
  shell('a signed-in user is shown the sign-in page', ["  if (route?.access === 'public' && ctx.user) return ctx.navigate('/');\n", '']),
  shell('an unknown path shows no not-found page', ['  if (!route) {\n', '  if (false as boolean) {\n']),
  // Fixed faults (the audit's faults file): a page left while it loaded, a page whose data was refused.
  fixedShell(
    'a page left while it loaded replaces the page opened after it (one main for every page, no render count)',
    ['  const view = newMain();\n  main.replaceWith(view);\n  main = view;\n', '  const view = main;\n  replace(view);\n'],
    [
      { file: 'web/src/main.ts', find: "    if (mine === renders) cleanup = done;\n    else if (typeof done === 'function') done();", replace: '    cleanup = done;' },
    ],
  ),
  fixedShell('a page whose data is refused is left blank', ['    if (mine === renders) {\n      const again', '    if (false as boolean) {\n      const again']),
  // What the navigation offers.
  shell('a user is offered the admin links', ["(route.access !== 'admin' || ctx.user?.role === 'admin')", 'true']),
  shell('every link is marked as the current page', ["'aria-current': route.path === current ? 'page' : undefined", "'aria-current': 'page'"]),
  shell('Connections is offered without a social platform', ['nav: (ctx) => ctx.features.socialPlatforms.length > 0', 'nav: () => true']),
  shell('Chat is offered without the chat feature', ['nav: (ctx) => ctx.features.chat }', 'nav: () => true }']),
  shell('signing out keeps the signed-in hint', ['      localStorage.removeItem(SIGNED_IN_HINT);\n', '']),

  // Building elements: text is text, an absent value is nothing.
  dom(
    'text is inserted as HTML',
    [
      'else parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));',
      "else if (child instanceof Node) parent.appendChild(child);\n    else (parent as Element).insertAdjacentHTML('beforeend', String(child));",
    ],
  ),
  dom('an absent child is written out', ['    if (child === null || child === undefined || child === false) continue;\n', '']),
  dom('an absent attribute is set as its text', ['    } else if (value === false || value === null || value === undefined) {\n      continue;\n', '']),

  // The templates page: step 1, a new workflow, the list's actions.
  templates('a workflow that is not JSON is sent anyway', ['            line.textContent = invalid;\n            return;', '            line.textContent = invalid;']),
  templates("a refusal of the workflow's save is not shown", ['            line.textContent = errorText(failure);\n', '']),
  templates('an earlier refusal stays after a save worked', ["          line.textContent = '';\n", '']),
  templates('the create form keeps the last template after a create', ['      createForm.reset();\n', '']),
  templates('an empty description is sent as ""', ['description: description.value || undefined', 'description: description.value']),
  fixedTemplates('a saved map after an earlier refusal is shown as an error', ["              status.className = 'status';\n              status.textContent = `Saved", '              status.textContent = `Saved']),
  fixedTemplates('two parameters with the same key are sent as one', ['            if (twice !== undefined) {', '            if (false as boolean) {']),
  fixedTemplates('a change whose list cannot be read again says only that it worked', ['      message = `${message} The list could not be read again: ${errorText(failure)}`;\n      failed = true;\n', '']),
  templates("a refused change says it worked", ['      message = errorText(failure);\n', '']),
  templates('a refused change is not marked as an error', ["status.className = failed ? 'status error' : 'status';", "status.className = 'status';"]),
  templates('a published template offers Publish, not Back to draft', ["      template.status === 'draft'\n        ? button(", '      true\n        ? button(']),
  templates('an inactive template offers Deactivate, not Activate', ['      template.isActive\n        ? button(', '      true\n        ? button(']),
  templates('Delete deletes without asking', [
    'if (window.confirm(`Delete ${name}? Jobs that ran it keep their history.`)) void',
    'void',
  ]),
  // Step 2: the parameter map.
  templates('a required parameter can be removed', ['        locked\n          ? null\n          : h(', '        h(']),
  templates('a required preset is added twice', ['if (required.has(preset.key) && !used().has(preset.key)) addRow(', 'if (required.has(preset.key)) addRow(']),
  templates('a linked input is offered as a value to set', ['.filter(([, value]) => !isLink(value))', '']),
  templates('a used preset is offered again', ['const free = presets.filter((preset) => !taken.has(preset.key));', 'const free = presets;']),
  templates('Add preset stays enabled when every preset is used', ['addPreset.disabled = free.length === 0;', 'addPreset.disabled = false;']),
  templates('the negative prompt row comes back to a saved map', ['existing.length === 0 && negative &&', 'negative &&']),
  templates('min above max is accepted', ["min.setCustomValidity(low > high ? 'Min must not be above max.' : '');", "min.setCustomValidity('');"]),
  templates('a default outside min and max is accepted', [' || item.default < low || item.default > high', '']),
  templates('a default that is not a number is accepted', ['Number.isNaN(item.default) || ', '']),
  templates('a numeric default is kept as text', ["numeric ? Number(text) : item.type === 'boolean'", "numeric ? text : item.type === 'boolean'"]),
  templates('a boolean default is sent as text', ["item.type === 'boolean' ? text === 'true' : text", 'text']),

  // A test run's card.
  testRun("another job's events move the card", ['    if (event.jobId === current) return apply(event);', '    return apply(event);']),
  testRun('events that come before the 202 are lost', ['            for (const seen of early.get(job.id) ?? []) if (current === job.id) apply(seen);\n', '']),
  testRun('Start stays enabled while a run runs', ['          start.disabled = true;\n', '']),
  testRun('Start stays disabled after the run ended', ['    start.disabled = false;\n    text.textContent = message;', '    text.textContent = message;']),
  testRun('Cancel stays after the run ended', ['    cancel.hidden = true;\n    start.disabled = false;', '    start.disabled = false;']),
  testRun('a refused start leaves Start disabled', [
    '            formStatus.textContent = errorText(failure);\n            start.disabled = false;',
    '            formStatus.textContent = errorText(failure);',
  ]),
  testRun("a refused start's reason is not shown", [
    '            formStatus.textContent = errorText(failure);\n            start.disabled = false;',
    '            start.disabled = false;',
  ]),
  testRun("a refused cancel's reason is not shown", ['      formStatus.textContent = errorText(failure);\n    } finally', '    } finally']),
  testRun('a refused cancel leaves Cancel disabled', ['      cancel.disabled = false;\n', '']),
  testRun("a failed run's reason is not shown", [
    "ended(`Failed: ${(event.error as { message?: string } | undefined)?.message ?? 'unknown error'}`);",
    "ended('Failed: unknown error');",
  ]),
  testRun('progress events do not move the bar', [
    '        bar.max = Number(event.max) || 1;\n        bar.value = Number(event.value) || 0;\n',
    '',
  ]),
  testRun("a completed run's bar is not full", ['        bar.value = bar.max;\n', '']),
  testRun('one output is called outputs', ["outputs.length === 1 ? '' : 's'", "'s'"]),
  testRun("a failed run's error is not listed", ["run.error ? h('span', { className: 'hint error' }, run.error.message) : null", 'null']),
  testRun('a run without text outputs gets an empty text line', ['run.textOutputs.length > 0 ? h(', 'true ? h(']),
  testRun('an unknown version is shown as undefined', ["run.templateVersion ?? '?'", 'run.templateVersion']),

  // The admin console.
  console_('a failed load is not told', [
    "    } catch (failure) {\n      status.className = 'status error';\n      status.textContent = failureText(failure, `Could not load the ${title.toLowerCase()}.`);\n    }",
    '    } catch {}',
  ]),
  console_("a failed load's reason is not shown", ['status.textContent = failureText(failure, `Could not load', 'status.textContent = failureText(null, `Could not load']),
  console_('a down server is shown healthy', ["server.healthy ? 'Healthy' : `Down: ${server.error ?? 'no answer'}`", "'Healthy'"]),
  console_("a down server's missing error is shown as null", ["server.error ?? 'no answer'", 'server.error']),
  console_('an unknown count is a blank cell', ["server.running ?? '—'", 'server.running']),
  console_('an incomplete queue list reads as complete', ["queue.complete ? '.' : ' (the first 50 shown; more wait).'", "'.'"]),
  console_('nothing waiting reads as blank', [".join(', ') || 'nothing'", ".join(', ')"]),
  console_('a dead letter without a job shows no summary', [
    "(message.jobId ? h('code', null, message.jobId) : h('code', null, message.summary))",
    "h('code', null, message.jobId)",
  ]),
  console_('Discard redrives the dead letter', ["if (action === 'redrive') await api.post(", 'if (true as boolean) await api.post(']),
  console_('a refused queue action says nothing', [
    "      status.className = 'status error';\n      status.textContent = failureText(failure, 'That did not work.');\n",
    '',
  ]),
  console_('a test run is not marked in the jobs', ['job.testRun ? `${job.status} (test run)` : job.status', 'job.status']),
  console_('a user without an email is a blank cell', ["h('td', null, job.userEmail ?? job.userId)", "h('td', null, job.userEmail)"]),
  console_('a new filter stays on the page it was on', [
    "filter.addEventListener('change', () => ((page = 1), void load()));",
    "filter.addEventListener('change', () => void load());",
  ]),
  console_('a refused cancel of a job says nothing', [
    "      status.className = 'status error';\n      status.textContent = failureText(failure, 'The cancel failed.');\n",
    '',
  ]),
  console_("a deleted template's health row has no name", ['row.name ?? `${row.templateId} (deleted)`', 'row.name']),
  console_('no failure rate reads as 0 %', ["row.failureRate === null ? '—' : ", '']),
  console_('long run times keep their tenths', ['value >= 10_000 ? `${(value / 1000).toFixed(0)} s` : ', '']),
  console_('no run time reads as 0.0 s', ["const ms = (value: number | null): string => (value === null ? '—' : ", 'const ms = (value: number | null): string => (']),
  console_('a new window is not asked for', ["  span.addEventListener('change', () => void load());\n", '']),
];
