import type { Edit, Mutation } from '../mutation.ts';

/**
 * The Generate page, its parameter form and the small user and admin pages (API keys, Connections, Chat, Users, Audit
 * log) of the web client (web/src/pages). The browser tests serve the committed bundle (web/dist/app.js), so each
 * guard is mutated there (esbuild's minified text: after a rebuild, take the find from web/dist/app.js again if it
 * moved) and in its source beside it (`also`).
 */
const BUNDLE = 'web/dist/app.js';
const FORM_TEST = ['tests/browser/web-user-audit-form.test.ts'];
const PAGES_TEST = ['tests/browser/web-user-audit-pages.test.ts'];

/** One guard, in the bundle (what the browser runs) and in its source file. */
const both =
  (prefix: string, source: string, tests: string[]) =>
  (name: string, bundle: [find: string, replace: string], src: [find: string, replace: string], more: Edit[] = []): Mutation => ({
    name: `web-user-form: ${prefix}: ${name}`,
    file: BUNDLE,
    find: bundle[0],
    replace: bundle[1],
    also: [{ file: source, find: src[0], replace: src[1] }, ...more],
    tests,
  });

const form = both('form', 'web/src/pages/parameter-form.ts', FORM_TEST);
const generate = both('generate', 'web/src/pages/generate.ts', FORM_TEST);
const keys = both('api keys', 'web/src/pages/api-keys.ts', PAGES_TEST);
const extras = both('connections and chat', 'web/src/pages/extras.ts', PAGES_TEST);
const users = both('users', 'web/src/pages/admin-users.ts', PAGES_TEST);
const audit = both('audit log', 'web/src/pages/audit.ts', PAGES_TEST);

export const MUTATIONS: Mutation[] = [
  // The fields of the parameter form: labels, hints, limits, defaults.
  form('a required field is not labelled "(required)"', ['${n.required?" (required)":""}', ''], ["${parameter.required ? ' (required)' : ''}", '']),
  form("a seed's range is told from its min, not from -1", ['From ${r.type==="seed"?-1:r.min??"…"}', 'From ${r.min??"…"}'], [
    "From ${parameter.type === 'seed' ? -1 : (parameter.min ?? '…')}",
    "From ${parameter.min ?? '…'}",
  ]),
  form("a parameter's description is not in its hint", ['[r.description,o]', '[o]'], ['[parameter.description, range]', '[range]']),
  form('a colour is not told to be picked', ['(ie(r)?["Pick a colour."]:[r.description,o])', '[r.description,o]'], [
    "(isColour(parameter) ? ['Pick a colour.'] : [parameter.description, range])",
    '[parameter.description, range]',
  ]),
  form('a seed of -1 is held back by its min', ['min:n.type==="seed"?-1:n.min', 'min:n.min'], ["min: parameter.type === 'seed' ? -1 : parameter.min", 'min: parameter.min']),
  form('a number takes whole steps only', ['step:n.type==="number"?"any":"1"', 'step:"1"'], ["step: parameter.type === 'number' ? 'any' : '1'", "step: '1'"]),
  form('an integer takes a fraction', ['step:n.type==="number"?"any":"1"', 'step:"any"'], ["step: parameter.type === 'number' ? 'any' : '1'", "step: 'any'"]),
  form('a number field has no max', ['max:n.max,required:n.required,value:typeof t=="number"', 'required:n.required,value:typeof t=="number"'], [
    '        max: parameter.max,\n',
    '',
  ]),
  form('a required prompt may be left empty', ['e("textarea",{name:n.key,rows:3,required:n.required}', 'e("textarea",{name:n.key,rows:3}'], [
    "h('textarea', { name: parameter.key, rows: 3, required: parameter.required }",
    "h('textarea', { name: parameter.key, rows: 3 }",
  ]),
  form('an integer named like a colour is a colour whatever its range', ['(n.min??0)===0&&n.max===16777215', '(n.min??0)===0'], [
    '(parameter.min ?? 0) === 0 && parameter.max === 0xffffff',
    '(parameter.min ?? 0) === 0',
  ]),
  form('a colour is not padded to six digits', ['.toString(16).padStart(6,"0").slice(-6)', '.toString(16).slice(-6)'], [".toString(16).padStart(6, '0').slice(-6)", '.toString(16).slice(-6)']),
  form('a checkbox defaulting to true starts unchecked', ['checked:t===!0', 'checked:!1'], ['checked: initial === true', 'checked: false']),
  form("a choice's default is not selected", ['selected:r===t}', 'selected:!1}'], ['selected: option === initial', 'selected: false']),
  form("a text's default is not filled in", ['required:n.required,value:typeof t=="string"?t:""', 'required:n.required,value:""'], [
    "required: parameter.required, value: typeof initial === 'string' ? initial : ''",
    "required: parameter.required, value: ''",
  ]),
  form("a number's default is not filled in", ['value:typeof t=="number"?String(t):""', 'value:""'], ["value: typeof initial === 'number' ? String(initial) : ''", "value: ''"]),
  form('a remixed value is not filled in (the default is)', ['Object.hasOwn(t,r.key)?t[r.key]:r.default', 'r.default'], [
    'Object.hasOwn(values, parameter.key) ? values[parameter.key] : parameter.default',
    'parameter.default',
  ]),
  form('a prompt is a one-line field', ['let r=n.key.includes("prompt")?e("textarea"', 'let r=!1?e("textarea"'], ["const multiline = parameter.key.includes('prompt');", 'const multiline = false;']),
  // An image: its upload.
  form('Generate does not wait for an upload in flight', ['read:()=>s,ready:()=>d}', 'read:()=>s,ready:async()=>{}}'], ['read: () => uploadId, ready: () => pending', 'read: () => uploadId, ready: async () => undefined']),
  form('a file taken away keeps its upload', ['if(s=void 0,r.required=!!n.required,', 'if(r.required=!!n.required,'], ['        uploadId = undefined;\n        input.required', '        input.required']),

  // The Generate page: the remix, the notices, the status, the submit.
  generate('the remixed template is not chosen', ['selected:b===o}', 'selected:!1}'], ['selected: template === remixed }', 'selected: false }']),
  generate("a remix's values fill any template", ['let I=b&&b===o?r.parameters:{}', 'let I=r?.parameters??{}'], ['const values = template && template === remixed ? remix!.parameters : {};', 'const values = remix?.parameters ?? {};']),
  generate('a remix whose template is gone is styled as filled in', ['className:o?"notice info":"notice"', 'className:"notice info"'], ["className: remixed ? 'notice info' : 'notice'", "className: 'notice info'"]),
  generate('remixed values that are not JSON break the page', ['catch{return{templateId:t,parameters:{}}}', 'catch(R){throw R}'], ['  } catch {\n    return { templateId, parameters: {} };', '  } catch (failure) {\n    throw failure;']),
  generate('a user sent away from an admin page is not told why', ['s?e("p",{className:"notice",role:"alert"},"That page is for administrators only."):null', 'null'], [
    "denied ? h('p', { className: 'notice', role: 'alert' }, 'That page is for administrators only.') : null",
    'null',
  ]),
  generate('no templates is not said', ['i.length===0?e("p",null,"No templates are available yet."):N("Template",d)', 'N("Template",d)'], [
    "templates.length === 0 ? h('p', null, 'No templates are available yet.') : field('Template', picker)",
    "field('Template', picker)",
  ]),
  generate('Generate is offered without a template', ['v.disabled=H||!b||b.cost>I,', 'v.disabled=H||!!b&&b.cost>I,'], ['submit.disabled = submitting || !template || template.cost > balance;', 'submit.disabled = submitting || (!!template && template.cost > balance);']),
  generate('a template the balance cannot pay is not said', ['b&&b.cost>I?l.textContent=Be:', '!1?l.textContent=Be:'], [
    '    if (template && template.cost > balance) status.textContent = NOT_ENOUGH;',
    '    if (false as boolean) status.textContent = NOT_ENOUGH;',
  ]),
  generate("a template's description is not shown", ['f.textContent=b?.description??""', 'f.textContent=""'], ["description.textContent = template?.description ?? '';", "description.textContent = '';"]),
  generate('another template keeps the refusal of the last', ['let b=S();l.textContent="",f.textContent', 'let b=S();f.textContent'], ["    status.textContent = '';\n    description.textContent", '    description.textContent']),
  generate('a new submit keeps the last refusal', ['H=!0,v.disabled=!0,l.textContent="";try', 'H=!0,v.disabled=!0;try'], [
    "          submit.disabled = true;\n          status.textContent = '';",
    '          submit.disabled = true;',
  ]),
  generate('Generate can be pressed again while a submit is in flight', ['if(I){H=!0,v.disabled=!0,', 'if(I){H=!0,'], ['          submit.disabled = true;\n', '']),
  generate('the request id is not sent as the Idempotency-Key', ['{templateId:I.id,parameters:U,requestId:D},D)', '{templateId:I.id,parameters:U,requestId:D})'], [
    "{ templateId: template.id, parameters, requestId }, requestId)",
    '{ templateId: template.id, parameters, requestId })',
  ]),
  generate('a new job is not put in the Jobs panel', ['D);x.add(z)}catch', 'D)}catch'], ['            jobs.add(job);\n', '']),
  generate('the balance is not read again after a submit', ['await n.refreshUser().catch(()=>{}),H=!1', 'H=!1'], ['          await ctx.refreshUser().catch(() => undefined);\n', '']),
  generate('Generate stays disabled after a submit', ['await n.refreshUser().catch(()=>{}),H=!1,h()', 'await n.refreshUser().catch(()=>{})'], ['          await ctx.refreshUser().catch(() => undefined);\n          submitting = false;\n          showCost();', '          await ctx.refreshUser().catch(() => undefined);']),
  generate('a service that cannot be reached is not said so', ['catch(U){l.textContent=P(U),', 'catch(U){l.textContent=U instanceof J?U.message:String(U),'], [
    '            status.textContent = errorText(failure);\n            submitting = false;',
    '            status.textContent = failure instanceof ApiError ? failure.message : String(failure);\n            submitting = false;',
  ]),
  generate('a job that ends does not price the template anew', ['n.refreshUser().then(h).catch', 'n.refreshUser().catch'], ['ctx.refreshUser().then(showCost).catch', 'ctx.refreshUser().catch']),
  generate("an output shown already is shown again", ['te.items.some(U=>U.id===I.id)||te.items.unshift(I)', 'te.items.unshift(I)'], [
    'if (!gallery.items.some((known) => known.id === output.id)) gallery.items.unshift(output);',
    'gallery.items.unshift(output);',
  ]),
  generate('the session gallery grows without bound', ['te.items.splice(Lt),', ''], ['    gallery.items.splice(GALLERY_LIMIT);\n', '']),
  generate("a job's template is not named", ['b&&u.get(b)||"Unavailable template"', '"Unavailable template"'], ["(id && names.get(id)) || 'Unavailable template'", "'Unavailable template'"]),
  // API keys.
  keys('a user is offered the admin scope', ['...n.user?.role==="admin"?["admin"]:[]', '"admin"'], ["...(ctx.user?.role === 'admin' ? ['admin'] : [])", "'admin'"]),
  keys('generate is not ticked at first', ['defaultChecked:v==="generate"', 'defaultChecked:!1'], ["defaultChecked: scope === 'generate'", 'defaultChecked: false']),
  keys('an expiry date ends at its start, not at its end', ['T23:59:59Z', 'T00:00:00Z'], ['T23:59:59Z', 'T00:00:00Z']),
  keys('a key without an expiry date is sent one', ['$=d.value?new Date(`${d.value}T23:59:59Z`).toISOString():void 0', '$=new Date(`${d.value}T23:59:59Z`).toISOString()'], [
    'const expiresAt = expires.value ? new Date(`${expires.value}T23:59:59Z`).toISOString() : undefined;',
    'const expiresAt = new Date(`${expires.value}T23:59:59Z`).toISOString();',
  ]),
  keys('a refused key is not said', ['catch(S){s.textContent=P(S);return}finally{w.disabled=!1}', 'catch(S){return}finally{w.disabled=!1}'], ['            status.textContent = errorText(failure);\n            return;\n          } finally {', '            return;\n          } finally {']),
  keys('the new key is not shown', ['E(H.key),l.reset()', 'l.reset()'], ['          showOnce(made.key);\n', '']),
  keys('the form is not emptied after a key is made', ['E(H.key),l.reset(),', 'E(H.key),'], ['          form.reset();\n', '']),
  keys('the list is not read again after a key is made', ['E(H.key),l.reset(),await f()', 'E(H.key),l.reset()'], ['          form.reset();\n          await load();', '          form.reset();']),
  keys('a key is revoked without asking', ['if(confirm(`Revoke the key "${v.name}"? Callers using it are refused from their next request.`)){', 'if(!0){'], [
    '    if (!confirm(`Revoke the key "${key.name}"? Callers using it are refused from their next request.`)) return;\n',
    '',
  ]),
  keys('the list is not read again after a revoke', ['revoked.`,await f()}}', 'revoked.`}}'], [
    '    status.textContent = `Key "${key.name}" revoked.`;\n    await load();',
    '    status.textContent = `Key "${key.name}" revoked.`;',
  ]),
  keys('a revoke is not said', ['s.textContent=`Key "${v.name}" revoked.`,', ''], ['    status.textContent = `Key "${key.name}" revoked.`;\n', '']),
  keys('a key without an expiry is not said to never expire', ['Le(T.expiresAt,"never")', 'Le(T.expiresAt,"")'], ["when(key.expiresAt, 'never')", "when(key.expiresAt, '')"]),
  keys('a key never used is not said so', ['Le(T.lastUsedAt,"not yet")', 'Le(T.lastUsedAt,"")'], ["when(key.lastUsedAt, 'not yet')", "when(key.lastUsedAt, '')"]),
  keys('no keys is not said', ['v.length===0?e("tr",null,e("td",{colSpan:7},"No API keys yet.")):', ''], ["keys.length === 0\n        ? h('tr', null, h('td', { colSpan: 7 }, 'No API keys yet.'))\n        :", '']),

  // Connections and Chat.
  extras('a connected platform is shown as not connected', ['i.has(o)?[" connected "', '!1?[" connected "'], ['connected.has(platform)', 'false']),
  extras("a disconnect names the platform as listed, not in lower case", ['await p.post(`/disconnect/${o.toLowerCase()}`)', 'await p.post(`/disconnect/${o}`)'], [
    'await api.post(`/disconnect/${platform.toLowerCase()}`);',
    'await api.post(`/disconnect/${platform}`);',
  ]),
  extras('a connect link names the platform as listed, not in lower case', ['href:`/api/v1/connect/${o.toLowerCase()}`', 'href:`/api/v1/connect/${o}`'], [
    'href: `/api/v1/connect/${platform.toLowerCase()}`',
    'href: `/api/v1/connect/${platform}`',
  ]),
  extras('a disconnect is not said', ['s.textContent=`${o} disconnected.`,', ''], ['                      status.textContent = `${platform} disconnected.`;\n', '']),
  extras('the connections are not read again after a disconnect', ['disconnected.`,await r()}', 'disconnected.`}'], [
    '                      status.textContent = `${platform} disconnected.`;\n                      await load();',
    '                      status.textContent = `${platform} disconnected.`;',
  ]),
  extras('Send can be pressed again while the model answers', ['let w=a.value;i.disabled=!0,r.textContent=""', 'let w=a.value;r.textContent=""'], ['          send.disabled = true;\n', '']),
  extras('Send stays disabled after an answer', ['catch(f){r.textContent=P(f)}finally{i.disabled=!1}', 'catch(f){r.textContent=P(f)}finally{}'], ['            send.disabled = false;\n', '']),
  extras('the message is kept after its answer', [',a.value=""}catch(f){', '}catch(f){'], ["            prompt.value = '';\n", '']),
  extras('the question is not logged beside its answer', ['s.append(e("li",{className:"me"},w),e("li",null,f))', 's.append(e("li",null,f))'], [
    "log.append(h('li', { className: 'me' }, text), h('li', null, response));",
    "log.append(h('li', null, response));",
  ]),
  extras("a refused chat's reason is not shown", ['catch(f){r.textContent=P(f)}finally{i.disabled=!1}', 'catch(f){r.textContent="The service could not be reached."}finally{i.disabled=!1}'], [
    '            status.textContent = errorText(failure);\n          } finally {',
    "            status.textContent = 'The service could not be reached.';\n          } finally {",
  ]),
  extras('a chat that cannot reach the service does not say so', ['catch(f){r.textContent=P(f)}finally{i.disabled=!1}', 'catch(f){r.textContent=f instanceof J?f.message:String(f)}finally{i.disabled=!1}'], [
    '            status.textContent = errorText(failure);\n          } finally {',
    '            status.textContent = failure instanceof ApiError ? failure.message : String(failure);\n          } finally {',
  ]),

  // Users.
  users('a search keeps the page it was on', ['c.preventDefault(),o=1,void w()', 'c.preventDefault(),void w()'], ['(event.preventDefault(), (page = 1), void show())', '(event.preventDefault(), void show())']),
  users('a search is not trimmed', ['q:a.value.trim()', 'q:a.value'], ['q: search.value.trim()', 'q: search.value']),
  users('the pager does not change the page', ['Z(o,c.totalPages,E=>(o=E,void w())))}g(t,e("h1",null,"Users")', 'Z(o,c.totalPages,E=>void w()))}g(t,e("h1",null,"Users")'], [
    'pager(page, result.totalPages, (next) => ((page = next), void show()))',
    'pager(page, result.totalPages, () => void show())',
  ]),
  users('a deduction is sent as an addition', ['`/admin/coin/${l.value}/${c.id}`', '`/admin/coin/add/${c.id}`'], ['`/admin/coin/${direction.value}/${user.id}`', '`/admin/coin/add/${user.id}`']),
  users('the amount is sent as text', ['amount:Number(E.value)', 'amount:E.value'], ['amount: Number(amount.value)', 'amount: amount.value']),
  users('an adjustment goes without an Idempotency-Key', ['reason:"admin_adjustment"},T)}catch', 'reason:"admin_adjustment"})}catch'], ["{ amount: Number(amount.value), reason: 'admin_adjustment' }, key);", "{ amount: Number(amount.value), reason: 'admin_adjustment' });"]),
  users("the administrator's own balance is not read again", ['h.id===n.user?.id&&await n.refreshUser(),', ''], ['            if (updated.id === ctx.user?.id) await ctx.refreshUser();\n', '']),
  users('the list is not read again after an adjustment', [',await f().catch(k=>i.textContent=`${C} The list could not be read again: ${P(k)}`)}}}', '}}}'], [
    '            await load().catch((failure: unknown) => (status.textContent = `${done} The list could not be read again: ${errorText(failure)}`));\n',
    '',
  ]),
  users('an adjustment is not said', ['i.textContent=C,h.id===', 'h.id==='], ['            status.textContent = done;\n', '']),
  users("a refused adjustment's reason is not shown", ['i.textContent=k instanceof J?k.message:"The change failed."', 'i.textContent="The change failed."'], [
    "status.textContent = failure instanceof ApiError ? failure.message : 'The change failed.';",
    "status.textContent = 'The change failed.';",
  ]),

  // The audit log.
  audit('an empty log is not said', ['o.items.length===0?e("tr",null,e("td",{colSpan:5},"No entries yet.")):', ''], [
    "result.items.length === 0\n        ? h('tr', null, h('td', { colSpan: 5 }, 'No entries yet.'))\n        :",
    '',
  ]),
  audit('an entry without a user shows "null"', ['d.targetUserId??""', 'String(d.targetUserId)'], ["entry.targetUserId ?? ''", 'String(entry.targetUserId)']),
  audit("an entry's details are not shown", ['JSON.stringify(d.details)', '""'], ['JSON.stringify(entry.details)', "''"]),
  audit('the log is read 20 a page', ['W({page:r,limit:25})', 'W({page:r})'], ['query({ page, limit: 25 })', 'query({ page })']),
  audit('the pager does not change the page', ['g(s,Z(r,o.totalPages,d=>(r=d,void i())))}g(t,e("h1",null,"Audit log")', 'g(s,Z(r,o.totalPages,d=>void i()))}g(t,e("h1",null,"Audit log")'], [
    'pager(page, result.totalPages, (next) => ((page = next), void load()))',
    'pager(page, result.totalPages, () => void load())',
  ]),
];
