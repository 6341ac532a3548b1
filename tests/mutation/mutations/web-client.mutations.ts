import { type Mutation, webGuard } from '../mutation.ts';

/**
 * The web client's guards (web/src). Each guard is deleted in its source; the runner builds the bundle the browser tests
 * serve from it (webGuard). template-prefill.ts is also run from its source by a unit test.
 */
const AUDIT = ['tests/browser/web-client-audit.test.ts'];
const PREFILL_TEST = ['tests/unit/web-client-audit-prefill.test.ts'];

const both = (prefix: string, source: string, tests: string[] = AUDIT) => webGuard(`web-client: ${prefix}`, source, tests);

const jobs = both('jobs panel', 'web/src/pages/jobs-panel.ts');
const socket = both('socket', 'web/src/socket.ts');
const api = both('api', 'web/src/api.ts');
const generate = both('generate', 'web/src/pages/generate.ts');
const form = both('form', 'web/src/pages/parameter-form.ts');
const history = both('history', 'web/src/pages/history.ts');
const auth = both('auth', 'web/src/pages/auth.ts');
const viewer = both('viewer', 'web/src/viewer.ts', ['tests/browser/web-client-audit-viewer.test.ts']);
const prefill = both('template prefill', 'web/src/pages/template-prefill.ts', PREFILL_TEST);

export const MUTATIONS: Mutation[] = [
  // The list the panel shows on load.
  jobs(
    'endings older than an hour are listed',
    ['!ACTIVE.has(job.status) && new Date(job.updatedAt).getTime() >= cutoff', '!ACTIVE.has(job.status)'],
  ),
  jobs('more than five endings are listed', ['.slice(0, MAX_ENDED)', '']),
  jobs(
    'an active job older than an hour is left out',
    ['const active = jobs.filter((job) => ACTIVE.has(job.status));', 'const active = jobs.filter((job) => ACTIVE.has(job.status) && new Date(job.updatedAt).getTime() >= cutoff);'],
  ),
  jobs("a queued job's status text from the server is not shown", ["job.statusText ?? 'Queued'", "'Queued'"]),
  jobs('a long prompt is not shortened', ['return prompt.length > PROMPT_CHARS ?', 'return false ?']),
  jobs('an hour and more is told in minutes', ['if (minutes < 60) return', 'if (true) return']),
  // How a job ends.
  jobs(
    "a failure's refund is not told",
    ["'unknown error'}${this.job.refundedCoins ? ` (${coins(this.job.refundedCoins)} refunded)` : ''}`", "'unknown error'}`"],
  ),
  jobs('an ended job keeps its Cancel button', ['    this.cancel.hidden = true;\n', '']),
  jobs(
    'outputs of jobs that ended before the page loaded fill the session gallery',
    ['if (ending && !this.outputsShown', 'if (!this.outputsShown'],
  ),
  jobs('the balance is not read again when a job ends', ['    if (ending) this.onEnded();\n', '']),
  jobs('an ended row takes late events (a completion over a failure)', ['    if (!this.active) return;\n    switch', '    switch']),
  jobs('progress events do not move the bar', [
    '        this.bar.max = Number(event.max) || 1;\n        this.bar.value = Number(event.value) || 0;\n',
    '',
  ]),
  jobs(
    "a refused cancel's reason is not shown",
    ['this.message.textContent = errorText(failure);', "this.message.textContent = 'The service could not be reached.';"],
  ),
  jobs('a refused cancel leaves its button disabled', ['      this.cancel.disabled = false;\n', '']),
  // Events for jobs the page does not show yet, and the snapshot after a reconnect.
  jobs('events that arrive while a job is fetched are lost', ['for (const later of fetching.get(id) ?? []) rows.get(id)?.apply(later);', '']),
  jobs('each event of a job being fetched fetches it again', ['    if (waiting) return void waiting.push(event);\n', '']),
  jobs('a snapshot does not read the list again', ["    if (event.type === 'job.snapshot') return void load().catch(() => undefined);\n", '']),

  socket('a replayed (older) event is shown again', ['if (this.lastSeq !== null && event.seq <= this.lastSeq) return;', '']),
  socket(
    'a reconnection syncs from the start, not from its last seq',
    ["this.lastSeq === null ? { type: 'sync' } : { type: 'sync', since: this.lastSeq }", "{ type: 'sync' }"],
  ),
  socket('a dropped connection is not opened again', ['        else this.connect();\n', '']),
  socket('a revoked session (4003) reconnects', ['      if (close.code === SESSION_REVOKED) return;\n', '']),
  socket(
    'an expired token (4001) reconnects without refreshing the session',
    ['if (close.code === TOKEN_EXPIRED) void refreshSession().then((renewed) => !this.stopped && (renewed ? this.connect() : onSignedOut()));', 'if (false) void 0;'],
  ),

  socket(
    'a session that cannot be renewed after 4001 leaves the page reconnecting for ever',
    ['(renewed ? this.connect() : onSignedOut())', 'this.connect()'],
  ),
  socket(
    'a socket refused before it opened retries without renewing the session',
    ["else if (!opened) void request('GET', '/auth/profile').catch(() => undefined).then(() => !this.stopped && this.connect());\n        else this.connect();", 'else this.connect();'],
  ),
  socket(
    'every reconnection asks for the profile first, also of a socket that had opened',
    ["        else if (!opened) void request('GET',", "        else if (true as boolean) void request('GET',"],
  ),
  auth('sign-in follows next to another site (/\\host)', ["/^\\/(?![/\\\\])/.test(next)", '/^\\/(?!\\/)/.test(next)']),

  api('state-changing requests lose their XSRF header', ["if (xsrf) headers['x-xsrf-token'] = xsrf;", '']),
  api('a request is not retried after the session was refreshed', ['if (await refreshSession()) res = await send(method, path, options);', 'await refreshSession();']),
  api('a session gone for good does not lead to sign-in', ['    if (res.status === 401) onSignedOut();\n', '']),
  api("a refusal's details are not shown", ['super(body.details?.length ?', 'super(false ?']),
  api(
    'an error without a body says nothing',
    ['return { statusCode: res.status, error: reason, message: reason };', "return { statusCode: res.status, error: '', message: '' };"],
  ),

  generate('a template the balance cannot pay can be submitted', ['submit.disabled = submitting || !template || template.cost > balance;', 'submit.disabled = submitting || !template;']),
  generate(
    "a refused submit's reason is not shown",
    ['            status.textContent = errorText(failure);\n            submitting = false;', "            status.textContent = 'The service could not be reached.';\n            submitting = false;"],
  ),
  form('a choice is sent as its text, not as the option it is', [
    "(select.value === '' ? undefined : (parameter.options ?? []).find((option) => String(option) === select.value))",
    "(select.value === '' ? undefined : select.value)",
  ]),
  form('an empty number is sent as 0', ["const read = () => (input.value === '' ? undefined : Number(input.value));", 'const read = () => Number(input.value);']),
  form('an empty text is sent as ""', ["read: () => (input.value === '' ? undefined : input.value)", 'read: () => input.value']),
  form('a required choice offers "(default)"', [
    "parameter.required ? null : h('option', { value: '' }, '(default)')",
    "h('option', { value: '' }, '(default)')",
  ]),

  history('Previous is offered on the first page', ['disabled: page <= 1', 'disabled: false']),
  history('Next is offered on the last page', ['disabled: page >= totalPages', 'disabled: false']),
  history('a page past the end shows nothing', [
    "    if (result.items.length === 0 && page > 1 && result.totalPages > 0) {\n      page = result.totalPages;\n      history.replaceState(null, '', `/history?page=${page}`);\n      return load();\n    }\n",
    '',
  ]),
  history('Delete deletes at the first click', [
    "      if (!armed) {\n        armed = true;\n        replace(remove, 'Confirm delete', hiddenName());\n        return;\n      }\n",
    '',
  ]),
  history("a refused delete's reason is not shown", [
    "status.textContent = failure instanceof ApiError ? failure.message : 'Delete failed.';",
    "status.textContent = 'Delete failed.';",
  ]),
  history("a deleted template's output is called a raw workflow", [
    "item.templateName ?? (item.templateId ? 'Deleted template' : 'Raw workflow')",
    "item.templateName ?? 'Raw workflow'",
  ]),
  history('a size is rounded down to KiB', ['Math.ceil(item.sizeBytes / 1024)', 'Math.floor(item.sizeBytes / 1024)']),
  history('the prompt is listed among the parameters', [".filter(([key]) => key !== 'prompt')", '']),

  auth('sign-in follows next to another site (//host)', ["/^\\/(?![/\\\\])/.test(next) ? next : '/'", "next.startsWith('/') ? next : '/'"]),

  viewer(
    'the arrows stop at the ends instead of wrapping around',
    ['this.index = (index + this.items.length) % this.items.length;', 'this.index = Math.min(Math.max(index, 0), this.items.length - 1);'],
  ),
  viewer('Tab is not kept inside the dialog', [" else if (event.key === 'Tab') {\n      this.trap(event);\n    }", '']),
  viewer(
    'a single output offers Previous and Next',
    ['this.previous.disabled = this.next.disabled = this.items.length < 2;', 'this.previous.disabled = this.next.disabled = false;'],
  ),

  prefill('a preset is guessed onto a linked input', ['if (key in node.inputs && !isLink(node.inputs[key]))', 'if (key in node.inputs)']),
  prefill(
    'a prompt behind a ConditioningCombine is not found',
    ["link = source.inputs['conditioning'] ?? source.inputs['conditioning_1'] ?? source.inputs[side];", "link = source.inputs['conditioning'] ?? source.inputs[side];"],
  ),
];
