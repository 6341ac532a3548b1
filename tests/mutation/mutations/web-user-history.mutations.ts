import type { Edit, Mutation } from '../mutation.ts';

/**
 * The user side of the web client not covered by web-client.mutations.ts: the History page (paging, tiles, delete,
 * download, publishing, leaving the page), the viewer's remaining guards, the request helper (api.ts), the sign-in
 * forms (auth.ts) and the socket's sign-out. The browser tests serve the committed bundle (web/dist/app.js), so each
 * guard is mutated there (esbuild's minified text: after a rebuild, take the find from web/dist/app.js again if it
 * moved) and in its source beside it (`also`).
 */
const BUNDLE = 'web/dist/app.js';
const HISTORY_TEST = ['tests/browser/web-user-audit-history.test.ts'];
const SESSION_TEST = ['tests/browser/web-user-audit-session.test.ts'];

/** One guard, in the bundle (what the browser runs) and in its source file. */
const both =
  (prefix: string, source: string, tests: string[]) =>
  (name: string, bundle: [find: string, replace: string], src: [find: string, replace: string], more: Edit[] = []): Mutation => ({
    name: `web-user-history: ${prefix}: ${name}`,
    file: BUNDLE,
    find: bundle[0],
    replace: bundle[1],
    also: [{ file: source, find: src[0], replace: src[1] }, ...more],
    tests,
  });

const history = both('history', 'web/src/pages/history.ts', HISTORY_TEST);
const viewer = both('viewer', 'web/src/viewer.ts', HISTORY_TEST);
const api = both('api', 'web/src/api.ts', SESSION_TEST);
const auth = both('auth', 'web/src/pages/auth.ts', SESSION_TEST);
const socket = both('socket', 'web/src/socket.ts', SESSION_TEST);
const jobs = both('jobs panel', 'web/src/pages/jobs-panel.ts', SESSION_TEST);
const dom = both('dom', 'web/src/dom.ts', SESSION_TEST);

export const MUTATIONS: Mutation[] = [
  // Paging and the empty page.
  history(
    'a negative page number is asked for as it is',
    ['c=Math.max(1,Number(f.get("page"))||1)', 'c=Number(f.get("page"))||1'],
    ["Math.max(1, Number(params.get('page')) || 1)", "Number(params.get('page')) || 1"],
  ),
  history(
    'a page number that is no number is asked for as NaN',
    ['Math.max(1,Number(f.get("page"))||1)', 'Math.max(1,Number(f.get("page")))'],
    ["Math.max(1, Number(params.get('page')) || 1)", "Math.max(1, Number(params.get('page')))"],
  ),
  history('no outputs is "Page 1 of 0"', ['`Page ${n} of ${Math.max(1,t)}`', '`Page ${n} of ${t}`'], ['`Page ${page} of ${Math.max(1, totalPages)}`', '`Page ${page} of ${totalPages}`']),
  history(
    'no outputs shows an empty grid',
    ['C.items.length===0?e("li",null,"Nothing yet: generate something first."):C.items.map($)', 'C.items.map($)'],
    ["result.items.length === 0 ? h('li', null, 'Nothing yet: generate something first.') : result.items.map(tile)", 'result.items.map(tile)'],
  ),
  history('the pager leaves the address on the old page', ['k=>{c=k,history.replaceState(null,"",`/history?page=${c}`),S()}', 'k=>{c=k,S()}'], ["        page = next;\n        history.replaceState(null, '', `/history?page=${page}`);\n", '        page = next;\n']),
  // A tile.
  history(
    'a template no longer offered gets a Remix link',
    ['b=h.templateId?s.get(h.templateId):void 0', 'b=h.templateId?s.get(h.templateId)??{id:h.templateId,parameters:[]}:void 0'],
    ['item.templateId ? catalogue.get(item.templateId) : undefined', 'item.templateId ? catalogue.get(item.templateId) ?? { id: item.templateId, parameters: [] } : undefined'],
  ),
  history("a parameter is named by its key, not the template's label", ['e("dt",null,o?.label??r)', 'e("dt",null,r)'], ["h('dt', null, parameter?.label ?? key)", "h('dt', null, key)"]),
  history('an input image is shown as its upload id', ['o?.type==="image"&&(w="an input image")', '!1&&(w="an input image")'], ["} else if (parameter?.type === 'image') {", '} else if (false as boolean) {']),
  history(
    "the template's parameter kinds are ignored: any number named colour is a swatch",
    ['d=o?ie(o):/colou?r/i.test(r)', 'd=/colou?r/i.test(r)'],
    ['const colour = parameter ? isColour(parameter) : /colou?r/i.test(key)', 'const colour = /colou?r/i.test(key)'],
  ),
  history('a colour of a raw workflow is shown as a number', [':/colou?r/i.test(r)&&typeof i=="number"', ':!1'], [": /colou?r/i.test(key) && typeof value === 'number'", ': false']),
  history('a swatch has no colour', ['f.style.backgroundColor=oe(i),', ''], ['      swatch.style.backgroundColor = colourToHex(value);\n', '']),
  history('an output without template is described as "null"', ['${h.templateName??"Output"}', '${h.templateName}'], ["${item.templateName ?? 'Output'}", '${item.templateName}']),
  // Delete and download.
  history('Confirm delete stays enabled while the DELETE runs', ['y.disabled=!0;try{await p.delete(', 'try{await p.delete('], ['      remove.disabled = true;\n', '']),
  history('a delete that worked says nothing', ['w.textContent=`${h.fileName} deleted.`,', ''], ['      status.textContent = `${item.fileName} deleted.`;\n', '']),
  history('a deleted output stays listed', ['deleted.`,await S().catch(D=>w.textContent=`${h.fileName} deleted. The list could not be read again: ${P(D)}`)})', 'deleted.`})'], [
    '      await load().catch((failure: unknown) => (status.textContent = `${item.fileName} deleted. The list could not be read again: ${errorText(failure)}`));\n',
    '',
  ]),
  history('a delete that could not be sent says nothing', ['D.message:"Delete failed."', 'D.message:""'], ["failure.message : 'Delete failed.'", "failure.message : ''"]),
  history('a download is not saved under the file name (the browser opens it)', ['download:h.fileName,', ''], ['download: item.fileName, ', '']),
  history('each download leaves its hidden link behind', ['z.click(),z.remove()', 'z.click()'], ['      link.remove();\n', '']),
  // Publishing.
  history('an image is offered for publishing', ['if(C.length===0||!h.mimeType.startsWith("video/"))return null;', 'if(C.length===0)return null;'], [
    "if (platforms.length === 0 || !item.mimeType.startsWith('video/')) return null;",
    'if (platforms.length === 0) return null;',
  ]),
  history('publishing is offered without a social platform', ['if(C.length===0||!h.mimeType', 'if(!h.mimeType'], ['if (platforms.length === 0 || !item.mimeType', 'if (!item.mimeType']),
  history('a failed publication is not marked as an error', ['className:t.status==="failed"?"hint error":"hint"', 'className:"hint"'], ["className: publication.status === 'failed' ? 'hint error' : 'hint'", "className: 'hint'"]),
  history("a published post's link is not shown", ['t.url?[" ",', '!1?[" ",'], ["publication.url ? [' ',", "false ? [' ',"]),
  history("a failed publication's reason is not shown", ['t.error?` (${t.error})`:null', 'null'], ['publication.error ? ` (${publication.error})` : null', 'null']),
  history("the publish answer's message is not shown", ['w.textContent=x.message,await l(h.id)', 'await l(h.id)'], ['        status.textContent = answer.message;\n', '']),
  history('the publications are not read again after a publish', ['w.textContent=x.message,await l(h.id)', 'w.textContent=x.message'], ['        await showPublications(item.id);\n      } catch', '      } catch']),
  history("a refused publish's reason is not shown", ['w.textContent=x instanceof J?x.message:"Publishing failed."', 'w.textContent="Publishing failed."'], [
    "status.textContent = failure instanceof ApiError ? failure.message : 'Publishing failed.';",
    "status.textContent = 'Publishing failed.';",
  ]),
  history('a publish that could not be sent says nothing', ['x.message:"Publishing failed."', 'x.message:""'], ["failure.message : 'Publishing failed.'", "failure.message : ''"]),
  history('publish events do not update the page', ['h.type.startsWith("publish.")&&typeof h.outputId=="string"&&l(h.outputId)', '!1'], [
    "if (event.type.startsWith('publish.') && typeof event.outputId === 'string') void showPublications(event.outputId);",
    '',
  ]),
  history('an event of an output not on the page asks the server about it', ['let C=E.get(h);C&&g(C,', 'let C=E.get(h);g(C,'], ['    if (!state) return;\n', '']),
  history('outputs of the page before are still asked about', ['s.clear();', ''], ['    publicationStates.clear();\n', '']),
  // Leaving the page.
  history('the page keeps listening to events after it was left', ['()=>{v(),i.dispose()}', '()=>{i.dispose()}'], ['    off();\n    viewer.dispose();', '    viewer.dispose();']),
  history('the viewer is left in the document after the page was left', ['()=>{v(),i.dispose()}', '()=>{v()}'], ['    off();\n    viewer.dispose();', '    off();']),

  viewer('Left in a focused video moves to another output', ['t.key==="ArrowLeft"&&!a?', 't.key==="ArrowLeft"?'], ["if (event.key === 'ArrowLeft' && !inMedia) {", "if (event.key === 'ArrowLeft') {"]),
  viewer('Right in a focused video moves to another output', ['t.key==="ArrowRight"&&!a?', 't.key==="ArrowRight"?'], ["} else if (event.key === 'ArrowRight' && !inMedia) {", "} else if (event.key === 'ArrowRight') {"]),
  viewer('a closed viewer keeps its media (a video plays on)', ['restore(){g(this.stage),', 'restore(){'], ['    replace(this.stage);\n    if (this.opener', '    if (this.opener']),

  // The request helper.
  api('a refused sign-in (401) asks for a refresh', ['s.status===401&&!wt.has(t)&&', 's.status===401&&'], ['res.status === 401 && !NO_REFRESH.has(path)', 'res.status === 401']),
  api('401s at once refresh the session once each', ['ke??=Te(', 'ke=Te('], ['refreshing ??= send(', 'refreshing = send(']),
  api('a later 401 reuses the first refresh (and is not refreshed)', ['.finally(()=>{ke=null})', ''], ['\n    .finally(() => {\n      refreshing = null;\n    });', ';']),
  api('a refresh that cannot be sent leaves the page signed in and failing', ['.catch(()=>!1).finally(', '.finally('], ['    .catch(() => false)\n', '']),
  api('a Generate request loses its idempotency key', ['a.idempotencyKey&&(s["idempotency-key"]=a.idempotencyKey),', ''], ["  if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;\n", '']),
  // The sign-in and sign-up forms.
  auth('the button stays enabled while signing in', ['l.preventDefault(),c.disabled=!0,w.textContent="";try{n===', 'l.preventDefault(),w.textContent="";try{n==='], ['            submit.disabled = true;\n', '']),
  auth('an earlier error stays while signing in again', ['l.preventDefault(),c.disabled=!0,w.textContent="";try{', 'l.preventDefault(),c.disabled=!0;try{'], ["            status.textContent = '';\n", '']),
  auth('a refused sign-in leaves the button disabled', ['catch(v){w.textContent=P(v),c.disabled=!1}}}},e("h1"', 'catch(v){w.textContent=P(v)}}}},e("h1"'], ['              submit.disabled = false;\n', '']),
  auth('an unreachable service says nothing', ['catch(v){w.textContent=P(v),c.disabled=!1}}}},e("h1"', 'catch(v){w.textContent=v instanceof J?v.message:"",c.disabled=!1}}}},e("h1"'], [
    'status.textContent = errorText(failure);',
    "status.textContent = failure instanceof ApiError ? failure.message : '';",
  ]),
  auth('a known provider error is shown by its code only', ['Nt[f]??', ''], ['PROVIDER_ERRORS[error] ?? ', '']),
  auth('an unknown provider error does not name its code', ['`Sign-in with the provider failed (${f}).`', '"Sign-in with the provider failed."'], ['`Sign-in with the provider failed (${error}).`', "'Sign-in with the provider failed.'"]),
  auth('a provider error is not shown', ['f&&(w.textContent=Nt[f]', '!1&&(w.textContent=Nt[f]'], ['if (error) status.textContent', 'if (false as boolean) status.textContent']),
  auth('the provider buttons are not offered', ['t.features.oidcProviders.length>0?', '!1?'], ['ctx.features.oidcProviders.length > 0', 'false']),
  auth("a provider button is named by the provider's key", ['l.charAt(0).toUpperCase()+l.slice(1)', 'l'], ['provider.charAt(0).toUpperCase() + provider.slice(1)', 'provider']),
  auth('back from a provider the page does not read the profile (no signed-in hint)', ['on:{click:()=>localStorage.setItem("signed-in","1")}', 'on:{}'], ["on: { click: () => localStorage.setItem('signed-in', '1') }", 'on: {}']),
  auth('the sign-up form focuses the email, not its first field', ['(n==="signup"?d:i).focus()', 'i.focus()'], ["(mode === 'signup' ? displayName : email).focus();", 'email.focus();']),
  auth('a password under 8 characters is sent to register', ['minLength:n==="signup"?8:void 0,', ''], ["minLength: mode === 'signup' ? 8 : undefined,", '']),
  auth('sign-up signs in without registering', ['n==="signup"&&await p.post("/auth/register"', '!1&&await p.post("/auth/register"'], ["if (mode === 'signup') await api.post('/auth/register'", "if (false as boolean) await api.post('/auth/register'"]),
  // The socket on sign-out.
  socket('the next session syncs from the last seq of the one before', ['this.ws=null,this.lastSeq=null}drop()', 'this.ws=null}drop()'], ['    this.lastSeq = null;\n  }\n\n  /** Drops', '  }\n\n  /** Drops']),
  socket('signing out leaves the socket open', ['this.ws?.close(1e3,"signed out"),', ''], ["    this.ws?.close(1000, 'signed out');\n", '']),
  // The jobs panel (guards not listed in web-client.mutations.ts or web.mutations.ts).
  jobs('"No jobs yet." stays under the jobs', ['a.hidden=s.size>0}', 'a.hidden=!1}'], ['    empty.hidden = rows.size > 0;\n', '']),
  jobs('no jobs shows nothing', ['a.hidden=s.size>0}', 'a.hidden=!0}'], ['empty.hidden = rows.size > 0;', 'empty.hidden = true;']),
  jobs('Cancel stays enabled while its request runs', ['requestCancel(){this.cancel.disabled=!0,this.message.textContent="";', 'requestCancel(){this.message.textContent="";'], [
    "    this.cancel.disabled = true;\n    this.message.textContent = '';",
    "    this.message.textContent = '';",
  ]),
  jobs("a cancel's earlier error stays while it is tried again", ['requestCancel(){this.cancel.disabled=!0,this.message.textContent="";try{', 'requestCancel(){this.cancel.disabled=!0;try{'], [
    "    this.cancel.disabled = true;\n    this.message.textContent = '';",
    '    this.cancel.disabled = true;',
  ]),
  jobs("each event of a test run fetches it again", ['if(d.has(l.jobId))return;', ''], ['    if (testRuns.has(event.jobId)) return;\n', '']),
  jobs('a job whose fetch failed is never fetched again', ['.finally(()=>f.delete(T))', ''], ['\n      .finally(() => fetching.delete(id));', ';']),
  jobs('a submitted job already shown from its event gets a second row', ['if(s.has(l.id))return;let v=r(l)', 'let v=r(l)'], ['    if (rows.has(job.id)) return;\n', '']),
  socket('a message that is no JSON throws in the page', ['let i;try{i=JSON.parse(String(r.data))}catch{return}', 'let i=JSON.parse(String(r.data));'], [
    '      let event: ServerEvent;\n      try {\n        event = JSON.parse(String(message.data)) as ServerEvent;\n      } catch {\n        return;\n      }',
    '      const event = JSON.parse(String(message.data)) as ServerEvent;',
  ]),
  dom("a field's hint does not describe it", ['return s&&t.setAttribute("aria-describedby",s.id),', 'return '], ["  if (hintEl) control.setAttribute('aria-describedby', hintEl.id);\n", '']),
  history('an output with only a prompt shows an empty Parameters list', ['if(a.length===0)return null;let s=a.map(', 'let s=a.map('], ['  if (entries.length === 0) return null;\n', '']),
];
