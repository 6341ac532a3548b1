import type { Edit, Mutation } from '../mutation.ts';

/**
 * The web client's guards (web/src). The browser tests serve the committed bundle (web/dist/app.js), so each guard is
 * mutated there (esbuild's minified text: after a rebuild, take the find from web/dist/app.js again if it moved) and
 * in its source beside it (`also`); template-prefill.ts is also run from its source by a unit test.
 */
const BUNDLE = 'web/dist/app.js';
const AUDIT = ['tests/browser/web-client-audit.test.ts'];
const PREFILL_TEST = ['tests/unit/web-client-audit-prefill.test.ts'];

/** One guard, in the bundle (what the browser runs) and in its source file. */
const both =
  (prefix: string, source: string, tests: string[] = AUDIT) =>
  (name: string, bundle: [find: string, replace: string], src: [find: string, replace: string], more: Edit[] = []): Mutation => ({
    name: `web-client: ${prefix}: ${name}`,
    file: BUNDLE,
    find: bundle[0],
    replace: bundle[1],
    also: [{ file: source, find: src[0], replace: src[1] }, ...more],
    tests,
  });

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
    ['!ce.has(y.status)&&new Date(y.updatedAt).getTime()>=T', '!ce.has(y.status)'],
    ['!ACTIVE.has(job.status) && new Date(job.updatedAt).getTime() >= cutoff', '!ACTIVE.has(job.status)'],
  ),
  jobs('more than five endings are listed', ['.slice(0,Ct)', ''], ['.slice(0, MAX_ENDED)', '']),
  jobs(
    'an active job older than an hour is left out',
    ['$=l.filter(y=>ce.has(y.status))', '$=l.filter(y=>ce.has(y.status)&&new Date(y.updatedAt).getTime()>=T)'],
    ['const active = jobs.filter((job) => ACTIVE.has(job.status));', 'const active = jobs.filter((job) => ACTIVE.has(job.status) && new Date(job.updatedAt).getTime() >= cutoff);'],
  ),
  jobs("a queued job's status text from the server is not shown", ['this.text.textContent=t.statusText??"Queued"', 'this.text.textContent="Queued"'], ["job.statusText ?? 'Queued'", "'Queued'"]),
  jobs('a long prompt is not shortened', ['return t?t.length>Oe?', 'return t?!1?'], ['return prompt.length > PROMPT_CHARS ?', 'return false ?']),
  jobs('an hour and more is told in minutes', ['return a<60?`${a} min', 'return!0?`${a} min'], ['if (minutes < 60) return', 'if (true) return']),
  // How a job ends.
  jobs(
    "a failure's refund is not told",
    ['"unknown error"}${this.job.refundedCoins?` (${this.job.refundedCoins} coins refunded)`:""}`', '"unknown error"}`'],
    ["'unknown error'}${this.job.refundedCoins ? ` (${this.job.refundedCoins} coins refunded)` : ''}`", "'unknown error'}`"],
  ),
  jobs('an ended job keeps its Cancel button', ['this.cancel.hidden=!0,', ''], ['    this.cancel.hidden = true;\n', '']),
  jobs(
    'outputs of jobs that ended before the page loaded fill the session gallery',
    ['i&&!this.outputsShown&&a.length>0', '!this.outputsShown&&a.length>0'],
    ['if (ending && !this.outputsShown', 'if (!this.outputsShown'],
  ),
  jobs('the balance is not read again when a job ends', [',i&&this.onEnded()}', '}'], ['    if (ending) this.onEnded();\n', '']),
  jobs('an ended row takes late events (a completion over a failure)', ['apply(t){if(this.active)switch', 'apply(t){switch'], ['    if (!this.active) return;\n    switch', '    switch']),
  jobs('progress events do not move the bar', ['this.bar.max=Number(t.max)||1,this.bar.value=Number(t.value)||0;break;', 'break;'], [
    '        this.bar.max = Number(event.max) || 1;\n        this.bar.value = Number(event.value) || 0;\n',
    '',
  ]),
  jobs(
    "a refused cancel's reason is not shown",
    ['this.message.textContent=P(t),', 'this.message.textContent="The service could not be reached.",'],
    ['this.message.textContent = errorText(failure);', "this.message.textContent = 'The service could not be reached.';"],
  ),
  jobs('a refused cancel leaves its button disabled', ['this.message.textContent=P(t),this.cancel.disabled=!1}', 'this.message.textContent=P(t)}'], ['      this.cancel.disabled = false;\n', '']),
  // Events for jobs the page does not show yet, and the snapshot after a reconnect.
  jobs('events that arrive while a job is fetched are lost', ['for(let S of f.get(T)??[])s.get(T)?.apply(S)', ''], ['for (const later of fetching.get(id) ?? []) rows.get(id)?.apply(later);', '']),
  jobs('each event of a job being fetched fetches it again', ['if($)return void $.push(l);', ''], ['    if (waiting) return void waiting.push(event);\n', '']),
  jobs('a snapshot does not read the list again', ['if(l.type==="job.snapshot")return void o().catch(()=>{});', ''], ["    if (event.type === 'job.snapshot') return void load().catch(() => undefined);\n", '']),

  socket('a replayed (older) event is shown again', ['if(this.lastSeq!==null&&i.seq<=this.lastSeq)return;', ''], ['if (this.lastSeq !== null && event.seq <= this.lastSeq) return;', '']),
  socket(
    'a reconnection syncs from the start, not from its last seq',
    ['this.lastSeq===null?{type:"sync"}:{type:"sync",since:this.lastSeq}', '{type:"sync"}'],
    ["this.lastSeq === null ? { type: 'sync' } : { type: 'sync', since: this.lastSeq }", "{ type: 'sync' }"],
  ),
  socket('a dropped connection is not opened again', [':s?this.connect():Q(', ':s?void 0:Q('], ['        else this.connect();\n', '']),
  socket('a revoked session (4003) reconnects', ['||(this.ws=null,r.code===Tt))return;', '||(this.ws=null,!1))return;'], ['      if (close.code === SESSION_REVOKED) return;\n', '']),
  socket(
    'an expired token (4001) reconnects without refreshing the session',
    ['r.code===Ue?Ne().then(o=>!this.stopped&&(o?this.connect():de())):', ''],
    ['if (close.code === TOKEN_EXPIRED) void refreshSession().then((renewed) => !this.stopped && (renewed ? this.connect() : onSignedOut()));', 'if (false) void 0;'],
  ),

  socket(
    'a session that cannot be renewed after 4001 leaves the page reconnecting for ever',
    ['(o?this.connect():de())', 'this.connect()'],
    ['(renewed ? this.connect() : onSignedOut())', 'this.connect()'],
  ),
  socket(
    'a socket refused before it opened retries without renewing the session',
    ['s?this.connect():Q("GET","/auth/profile").catch(()=>{}).then(()=>!this.stopped&&this.connect())', 'this.connect()'],
    ["else if (!opened) void request('GET', '/auth/profile').catch(() => undefined).then(() => !this.stopped && this.connect());\n        else this.connect();", 'else this.connect();'],
  ),
  socket(
    'every reconnection asks for the profile first, also of a socket that had opened',
    [':s?this.connect():Q(', ':!1?this.connect():Q('],
    ["        else if (!opened) void request('GET',", "        else if (true as boolean) void request('GET',"],
  ),
  auth('sign-in follows next to another site (/\\host)', ['/^\\/(?![/\\\\])/.test(r)', '/^\\/(?!\\/)/.test(r)'], ["/^\\/(?![/\\\\])/.test(next)", '/^\\/(?!\\/)/.test(next)']),

  api('state-changing requests lose their XSRF header', ['i&&(s["x-xsrf-token"]=i)', 'i&&!1'], ["if (xsrf) headers['x-xsrf-token'] = xsrf;", '']),
  api('a request is not retried after the session was refreshed', ['await Ne()&&(s=await Te(n,t,a))', 'await Ne()'], ['if (await refreshSession()) res = await send(method, path, options);', 'await refreshSession();']),
  api('a session gone for good does not lead to sign-in', ['s.status===401&&de()', '!1'], ['    if (res.status === 401) onSignedOut();\n', '']),
  api("a refusal's details are not shown", ['super(s.details?.length?', 'super(!1?'], ['super(body.details?.length ?', 'super(false ?']),
  api(
    'an error without a body says nothing',
    ['return{statusCode:n.status,error:a,message:a}', 'return{statusCode:n.status,error:"",message:""}'],
    ['return { statusCode: res.status, error: reason, message: reason };', "return { statusCode: res.status, error: '', message: '' };"],
  ),

  generate('a template the balance cannot pay can be submitted', ['v.disabled=H||!b||b.cost>I,', 'v.disabled=H||!b,'], ['submit.disabled = submitting || !template || template.cost > balance;', 'submit.disabled = submitting || !template;']),
  generate(
    "a refused submit's reason is not shown",
    ['catch(U){l.textContent=P(U),H=!1', 'catch(U){l.textContent="The service could not be reached.",H=!1'],
    ['            status.textContent = errorText(failure);\n            submitting = false;', "            status.textContent = 'The service could not be reached.';\n            submitting = false;"],
  ),
  form('a choice is sent as its text, not as the option it is', ['s.value===""?void 0:(n.options??[]).find(r=>String(r)===s.value)', 's.value===""?void 0:s.value'], [
    "(select.value === '' ? undefined : (parameter.options ?? []).find((option) => String(option) === select.value))",
    "(select.value === '' ? undefined : select.value)",
  ]),
  form('an empty number is sent as 0', ['r=()=>s.value===""?void 0:Number(s.value)', 'r=()=>Number(s.value)'], ["const read = () => (input.value === '' ? undefined : Number(input.value));", 'const read = () => Number(input.value);']),
  form('an empty text is sent as ""', ['read:()=>r.value===""?void 0:r.value', 'read:()=>r.value'], ["read: () => (input.value === '' ? undefined : input.value)", 'read: () => input.value']),
  form('a required choice offers "(default)"', ['n.required?null:e("option",{value:""},"(default)")', 'e("option",{value:""},"(default)")'], [
    "parameter.required ? null : h('option', { value: '' }, '(default)')",
    "h('option', { value: '' }, '(default)')",
  ]),

  history('Previous is offered on the first page', ['disabled:n<=1', 'disabled:!1'], ['disabled: page <= 1', 'disabled: false']),
  history('Next is offered on the last page', ['disabled:n>=t', 'disabled:!1'], ['disabled: page >= totalPages', 'disabled: false']),
  history('a page past the end shows nothing', ['if(E.clear(),C.items.length===0&&c>1&&C.totalPages>0)return c=C.totalPages,history.replaceState(null,"",`/history?page=${c}`),S();', 'E.clear();'], [
    "    if (result.items.length === 0 && page > 1 && result.totalPages > 0) {\n      page = result.totalPages;\n      history.replaceState(null, '', `/history?page=${page}`);\n      return load();\n    }\n",
    '',
  ]),
  history('Delete deletes at the first click', ['if(!u){u=!0,g(y,"Confirm delete",k());return}', ''], [
    "      if (!armed) {\n        armed = true;\n        replace(remove, 'Confirm delete', hiddenName());\n        return;\n      }\n",
    '',
  ]),
  history("a refused delete's reason is not shown", ['w.textContent=D instanceof J?D.message:"Delete failed."', 'w.textContent="Delete failed."'], [
    "status.textContent = failure instanceof ApiError ? failure.message : 'Delete failed.';",
    "status.textContent = 'Delete failed.';",
  ]),
  history("a deleted template's output is called a raw workflow", ['h.templateName??(h.templateId?"Deleted template":"Raw workflow")', 'h.templateName??"Raw workflow"'], [
    "item.templateName ?? (item.templateId ? 'Deleted template' : 'Raw workflow')",
    "item.templateName ?? 'Raw workflow'",
  ]),
  history('a size is rounded down to KiB', ['Math.ceil(h.sizeBytes/1024)', 'Math.floor(h.sizeBytes/1024)'], ['Math.ceil(item.sizeBytes / 1024)', 'Math.floor(item.sizeBytes / 1024)']),
  history('the prompt is listed among the parameters', ['.filter(([r])=>r!=="prompt")', ''], [".filter(([key]) => key !== 'prompt')", '']),

  auth('sign-in follows next to another site (//host)', ['/^\\/(?![/\\\\])/.test(r)?r:"/"', 'r.startsWith("/")?r:"/"'], ["/^\\/(?![/\\\\])/.test(next) ? next : '/'", "next.startsWith('/') ? next : '/'"]),

  viewer(
    'the arrows stop at the ends instead of wrapping around',
    ['this.index=(t+this.items.length)%this.items.length', 'this.index=Math.min(Math.max(t,0),this.items.length-1)'],
    ['this.index = (index + this.items.length) % this.items.length;', 'this.index = Math.min(Math.max(index, 0), this.items.length - 1);'],
  ),
  viewer('Tab is not kept inside the dialog', ['t.key==="Tab"&&this.trap(t)', '!1'], [" else if (event.key === 'Tab') {\n      this.trap(event);\n    }", '']),
  viewer(
    'a single output offers Previous and Next',
    ['this.previous.disabled=this.next.disabled=this.items.length<2', 'this.previous.disabled=this.next.disabled=!1'],
    ['this.previous.disabled = this.next.disabled = this.items.length < 2;', 'this.previous.disabled = this.next.disabled = false;'],
  ),

  prefill('a preset is guessed onto a linked input', ['if(t in s.inputs&&!Ve(s.inputs[t]))', 'if(t in s.inputs)'], ['if (key in node.inputs && !isLink(node.inputs[key]))', 'if (key in node.inputs)']),
  prefill(
    'a prompt behind a ConditioningCombine is not found',
    ['s=i.inputs.conditioning??i.inputs.conditioning_1??i.inputs[t]', 's=i.inputs.conditioning??i.inputs[t]'],
    ["link = source.inputs['conditioning'] ?? source.inputs['conditioning_1'] ?? source.inputs[side];", "link = source.inputs['conditioning'] ?? source.inputs[side];"],
  ),
];
