import type { Edit, Mutation } from '../mutation.ts';

/**
 * The guards of the web client's shell (main.ts: routing, access to the admin pages, navigation; dom.ts) and of its
 * admin pages (admin-templates.ts, template-test-run.ts, admin-console.ts). The browser tests serve the committed
 * bundle (web/dist/app.js), so each guard is mutated there (esbuild's minified text: after a rebuild, take the find
 * from web/dist/app.js again if it moved) and in its source beside it (`also`).
 */
const BUNDLE = 'web/dist/app.js';
const SHELL = ['tests/browser/web-admin-audit-shell.test.ts'];
const TEMPLATES = ['tests/browser/web-admin-audit-templates.test.ts'];
const TEST_RUN = ['tests/browser/web-admin-audit-test-run.test.ts'];
const CONSOLE = ['tests/browser/web-admin-audit-console.test.ts'];
/** The faults the audit found, fixed. */
const FIXED = ['tests/browser/web-admin-audit-faults.test.ts'];

/** One guard, in the bundle (what the browser runs) and in its source file. */
const both =
  (prefix: string, source: string, tests: string[]) =>
  (name: string, bundle: [find: string, replace: string], src: [find: string, replace: string], more: Edit[] = []): Mutation => ({
    name: `web-admin: ${prefix}: ${name}`,
    file: BUNDLE,
    find: bundle[0],
    replace: bundle[1],
    also: [{ file: source, find: src[0], replace: src[1] }, ...more],
    tests,
  });

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
    ['if(t?.access==="admin"&&S.user?.role!=="admin")return S.navigate("/?denied=admin");', ''],
    ["  if (route?.access === 'admin' && ctx.user?.role !== 'admin') return ctx.navigate('/?denied=admin');\n", ''],
  ),
  shell(
    'a signed-out visitor is not sent to sign in',
    ['if(t&&t.access!=="public"&&!S.user)return S.navigate(`/login?next=${encodeURIComponent(location.pathname)}`);', ''],
    ["  if (route && route.access !== 'public' && !ctx.user) return ctx.navigate(`/login?next=${encodeURIComponent(location.pathname)}`);\n", ''],
  ),
  shell(
    'sign-in does not come back to the page asked for',
    ['if(t&&t.access!=="public"&&!S.user)return S.navigate(`/login?next=${encodeURIComponent(location.pathname)}`);', 'if(t&&t.access!=="public"&&!S.user)return S.navigate("/login");'],
    ["if (route && route.access !== 'public' && !ctx.user) return ctx.navigate(`/login?next=${encodeURIComponent(location.pathname)}`);", "if (route && route.access !== 'public' && !ctx.user) return ctx.navigate('/login');"],
  ),
  shell('a signed-in user is shown the sign-in page', ['if(t?.access==="public"&&S.user)return S.navigate("/");', ''], ["  if (route?.access === 'public' && ctx.user) return ctx.navigate('/');\n", '']),
  shell('an unknown path shows no not-found page', ['if(ge.replaceWith(a),ge=a,!t){document.title="Not found', 'if(ge.replaceWith(a),ge=a,!1){document.title="Not found'], ['  if (!route) {\n', '  if (false as boolean) {\n']),
  // Fixed faults (the audit's faults file): a page left while it loaded, a page whose data was refused.
  fixedShell(
    'a page left while it loaded replaces the page opened after it (one main for every page, no render count)',
    ['let a=dt();if(ge.replaceWith(a),ge=a,!t)', 'let a=ge;if(h(a),!t)'],
    ['  const view = newMain();\n  main.replaceWith(view);\n  main = view;\n', '  const view = main;\n  replace(view);\n'],
    [
      { file: BUNDLE, find: 'n===Se?fe=s:typeof s=="function"&&s()', replace: 'fe=s' },
      { file: 'web/src/main.ts', find: "    if (mine === renders) cleanup = done;\n    else if (typeof done === 'function') done();", replace: '    cleanup = done;' },
    ],
  ),
  fixedShell('a page whose data is refused is left blank', ['catch(s){if(n===Se){', 'catch(s){if(!1){'], ['    if (mine === renders) {\n      const again', '    if (false as boolean) {\n      const again']),
  // What the navigation offers.
  shell('a user is offered the admin links', ['(a.access!=="admin"||S.user?.role==="admin")', '!0'], ["(route.access !== 'admin' || ctx.user?.role === 'admin')", 'true']),
  shell('every link is marked as the current page', ['"aria-current":a.path===n?"page":void 0', '"aria-current":"page"'], ["'aria-current': route.path === current ? 'page' : undefined", "'aria-current': 'page'"]),
  shell('Connections is offered without a social platform', ['nav:n=>n.features.socialPlatforms.length>0', 'nav:()=>!0'], ['nav: (ctx) => ctx.features.socialPlatforms.length > 0', 'nav: () => true']),
  shell('Chat is offered without the chat feature', ['nav:n=>n.features.chat}', 'nav:()=>!0}'], ['nav: (ctx) => ctx.features.chat }', 'nav: () => true }']),
  shell('signing out keeps the signed-in hint', ['localStorage.removeItem(Le),', ''], ['      localStorage.removeItem(SIGNED_IN_HINT);\n', '']),

  // Building elements: text is text, an absent value is nothing.
  dom(
    'text is inserted as HTML',
    ['n.appendChild(a instanceof Node?a:document.createTextNode(String(a)))', 'a instanceof Node?n.appendChild(a):n.insertAdjacentHTML("beforeend",String(a))'],
    [
      'else parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));',
      "else if (child instanceof Node) parent.appendChild(child);\n    else (parent as Element).insertAdjacentHTML('beforeend', String(child));",
    ],
  ),
  dom('an absent child is written out', ['for(let a of t)a==null||a===!1||(', 'for(let a of t)('], ['    if (child === null || child === undefined || child === false) continue;\n', '']),
  dom('an absent attribute is set as its text', ['if(r===!1||r===null||r===void 0)continue;', ''], ['    } else if (value === false || value === null || value === undefined) {\n      continue;\n', '']),

  // The templates page: step 1, a new workflow, the list's actions.
  templates('a workflow that is not JSON is sent anyway', ['catch{a.textContent=s;return}', 'catch{a.textContent=s}'], ['            line.textContent = invalid;\n            return;', '            line.textContent = invalid;']),
  templates("a refusal of the workflow's save is not shown", ['catch(v){a.textContent=K(v)}', 'catch(v){}'], ['            line.textContent = errorText(failure);\n', '']),
  templates('an earlier refusal stays after a save worked', ['o.preventDefault(),a.textContent="";let u;', 'o.preventDefault();let u;'], ["          line.textContent = '';\n", '']),
  templates('the create form keeps the last template after a create', ['N.reset(),', ''], ['      createForm.reset();\n', '']),
  templates('an empty description is sent as ""', ['description:w.value||void 0', 'description:w.value'], ['description: description.value || undefined', 'description: description.value']),
  fixedTemplates('a saved map after an earlier refusal is shown as an error', ['i.className="status",i.textContent=`Saved ${L.name}', 'i.textContent=`Saved ${L.name}'], ["              status.className = 'status';\n              status.textContent = `Saved", '              status.textContent = `Saved']),
  fixedTemplates('two parameters with the same key are sent as one', ['if(A!==void 0){O.textContent=`Two parameters', 'if(!1){O.textContent=`Two parameters'], ['            if (twice !== undefined) {', '            if (false as boolean) {']),
  fixedTemplates('a change whose list cannot be read again says only that it worked', ['catch(R){b=`${b} The list could not be read again: ${K(R)}`,E=!0}', 'catch(R){}'], ['      message = `${message} The list could not be read again: ${errorText(failure)}`;\n      failed = true;\n', '']),
  templates("a refused change says it worked", ['catch(R){E=!0,b=K(R)}', 'catch(R){E=!0}'], ['      message = errorText(failure);\n', '']),
  templates('a refused change is not marked as an error', ['i.className=E?"status error":"status"', 'i.className="status"'], ["status.className = failed ? 'status error' : 'status';", "status.className = 'status';"]),
  templates('a published template offers Publish, not Back to draft', ['d.status==="draft"?k(', '!0?k('], ["      template.status === 'draft'\n        ? button(", '      true\n        ? button(']),
  templates('an inactive template offers Deactivate, not Activate', ['d.isActive?k(', '!0?k('], ['      template.isActive\n        ? button(', '      true\n        ? button(']),
  templates('Delete deletes without asking', ['window.confirm(`Delete ${d.name}? Jobs that ran it keep their history.`)&&', ''], [
    'if (window.confirm(`Delete ${template.name}? Jobs that ran it keep their history.`)) void',
    'void',
  ]),
  // Step 2: the parameter map.
  templates('a required parameter can be removed', ['D?null:e("button",{type:"button",className:"link"', 'e("button",{type:"button",className:"link"'], ['        locked\n          ? null\n          : h(', '        h(']),
  templates('a required preset is added twice', ['Ie.has(m.key)&&!ae().has(m.key)&&Y(', 'Ie.has(m.key)&&Y('], ['if (required.has(preset.key) && !used().has(preset.key)) addRow(', 'if (required.has(preset.key)) addRow(']),
  templates('a linked input is offered as a value to set', ['.filter(([,U])=>!Ht(U))', ''], ['.filter(([, value]) => !isLink(value))', '']),
  templates('a used preset is offered again', ['D=k.filter(A=>!m.has(A.key))', 'D=k'], ['const free = presets.filter((preset) => !taken.has(preset.key));', 'const free = presets;']),
  templates('Add preset stays enabled when every preset is used', ['ye.disabled=D.length===0', 'ye.disabled=!1'], ['addPreset.disabled = free.length === 0;', 'addPreset.disabled = false;']),
  templates('the negative prompt row comes back to a saved map', ['Ae.length===0&&G&&', 'G&&'], ['existing.length === 0 && negative &&', 'negative &&']),
  templates('min above max is accepted', ['A.setCustomValidity(U>Z?"Min must not be above max.":"")', 'A.setCustomValidity("")'], ["min.setCustomValidity(low > high ? 'Min must not be above max.' : '');", "min.setCustomValidity('');"]),
  templates('a default outside min and max is accepted', ['||m.default<U||m.default>Z', ''], [' || item.default < low || item.default > high', '']),
  templates('a default that is not a number is accepted', ['Number.isNaN(m.default)||', ''], ['Number.isNaN(item.default) || ', '']),
  templates('a numeric default is kept as text', ['H?Number(W):m.type==="boolean"', 'H?W:m.type==="boolean"'], ["numeric ? Number(text) : item.type === 'boolean'", "numeric ? text : item.type === 'boolean'"]),
  templates('a boolean default is sent as text', ['m.type==="boolean"?W==="true":W', 'W'], ["item.type === 'boolean' ? text === 'true' : text", 'text']),

  // A test run's card.
  testRun("another job's events move the card", ['if(N.jobId===P)return q(N);', 'return q(N);'], ['    if (event.jobId === current) return apply(event);', '    return apply(event);']),
  testRun('events that come before the 202 are lost', ['for(let d of l.get(y.id)??[])P===y.id&&q(d);', ''], ['            for (const seen of early.get(job.id) ?? []) if (current === job.id) apply(seen);\n', '']),
  testRun('Start stays enabled while a run runs', ['s.textContent="",i.disabled=!0;try', 's.textContent="";try'], ['          start.disabled = true;\n', '']),
  testRun('Start stays disabled after the run ended', ['u.hidden=!0,i.disabled=!1,o.textContent=N', 'u.hidden=!0,o.textContent=N'], ['    start.disabled = false;\n    text.textContent = message;', '    text.textContent = message;']),
  testRun('Cancel stays after the run ended', ['P=null,u.hidden=!0,i.disabled=!1', 'P=null,i.disabled=!1'], ['    cancel.hidden = true;\n    start.disabled = false;', '    start.disabled = false;']),
  testRun('a refused start leaves Start disabled', ['catch(y){s.textContent=K(y),i.disabled=!1}', 'catch(y){s.textContent=K(y)}'], [
    '            formStatus.textContent = errorText(failure);\n            start.disabled = false;',
    '            formStatus.textContent = errorText(failure);',
  ]),
  testRun("a refused start's reason is not shown", ['catch(y){s.textContent=K(y),i.disabled=!1}', 'catch(y){i.disabled=!1}'], [
    '            formStatus.textContent = errorText(failure);\n            start.disabled = false;',
    '            start.disabled = false;',
  ]),
  testRun("a refused cancel's reason is not shown", ['catch(N){s.textContent=K(N)}finally', 'catch(N){}finally'], ['      formStatus.textContent = errorText(failure);\n    } finally', '    } finally']),
  testRun('a refused cancel leaves Cancel disabled', ['finally{u.disabled=!1}', 'finally{}'], ['      cancel.disabled = false;\n', '']),
  testRun("a failed run's reason is not shown", ['$(`Failed: ${N.error?.message??"unknown error"}`)', '$("Failed: unknown error")'], [
    "ended(`Failed: ${(event.error as { message?: string } | undefined)?.message ?? 'unknown error'}`);",
    "ended('Failed: unknown error');",
  ]),
  testRun('progress events do not move the bar', ['r.max=Number(N.max)||1,r.value=Number(N.value)||0;break;', 'break;'], [
    '        bar.max = Number(event.max) || 1;\n        bar.value = Number(event.value) || 0;\n',
    '',
  ]),
  testRun("a completed run's bar is not full", ['r.value=r.max;let y', 'let y'], ['        bar.value = bar.max;\n', '']),
  testRun('one output is called outputs', ['y.length===1?"":"s"', '"s"'], ["outputs.length === 1 ? '' : 's'", "'s'"]),
  testRun("a failed run's error is not listed", ['y.error?e("span",{className:"hint error"},y.error.message):null', 'null'], ["run.error ? h('span', { className: 'hint error' }, run.error.message) : null", 'null']),
  testRun('a run without text outputs gets an empty text line', ['y.textOutputs.length>0?e(', '!0?e('], ['run.textOutputs.length > 0 ? h(', 'true ? h(']),
  testRun('an unknown version is shown as undefined', ['y.templateVersion??"?"', 'y.templateVersion'], ["run.templateVersion ?? '?'", 'run.templateVersion']),

  // The admin console.
  console_('a failed load is not told', ['catch(o){s.className="status error",s.textContent=Pe(o,`Could not load the ${t.toLowerCase()}.`)}', 'catch(o){}'], [
    "    } catch (failure) {\n      status.className = 'status error';\n      status.textContent = failureText(failure, `Could not load the ${title.toLowerCase()}.`);\n    }",
    '    } catch {}',
  ]),
  console_("a failed load's reason is not shown", ['s.textContent=Pe(o,`Could not load', 's.textContent=Pe(null,`Could not load'], ['status.textContent = failureText(failure, `Could not load', 'status.textContent = failureText(null, `Could not load']),
  console_('a down server is shown healthy', ['o.healthy?"Healthy":`Down: ${o.error??"no answer"}`', '"Healthy"'], ["server.healthy ? 'Healthy' : `Down: ${server.error ?? 'no answer'}`", "'Healthy'"]),
  console_("a down server's missing error is shown as null", ['o.error??"no answer"', 'o.error'], ["server.error ?? 'no answer'", 'server.error']),
  console_('an unknown count is a blank cell', ['o.running??"—"', 'o.running'], ["server.running ?? '—'", 'server.running']),
  console_('an incomplete queue list reads as complete', ['c.complete?".":" (the first 50 shown; more wait)."', '"."'], ["queue.complete ? '.' : ' (the first 50 shown; more wait).'", "'.'"]),
  console_('nothing waiting reads as blank', ['.join(", ")||"nothing"', '.join(", ")'], [".join(', ') || 'nothing'", ".join(', ')"]),
  console_('a dead letter without a job shows no summary', ['u=c=>c.jobId?e("code",null,c.jobId):e("code",null,c.summary)', 'u=c=>e("code",null,c.jobId)'], [
    "(message.jobId ? h('code', null, message.jobId) : h('code', null, message.summary))",
    "h('code', null, message.jobId)",
  ]),
  console_('Discard redrives the dead letter', ['g==="redrive"?await f.post(', '!0?await f.post('], ["if (action === 'redrive') await api.post(", 'if (true as boolean) await api.post(']),
  console_('a refused queue action says nothing', ['catch(P){r.className="status error",r.textContent=Pe(P,"That did not work.")}', 'catch(P){}'], [
    "      status.className = 'status error';\n      status.textContent = failureText(failure, 'That did not work.');\n",
    '',
  ]),
  console_('a test run is not marked in the jobs', ['g.testRun?`${g.status} (test run)`:g.status', 'g.status'], ['job.testRun ? `${job.status} (test run)` : job.status', 'job.status']),
  console_('a user without an email is a blank cell', ['e("td",null,g.userEmail??g.userId)', 'e("td",null,g.userEmail)'], ["h('td', null, job.userEmail ?? job.userId)", "h('td', null, job.userEmail)"]),
  console_('a new filter stays on the page it was on', ['a.addEventListener("change",()=>(o=1,void v()))', 'a.addEventListener("change",()=>void v())'], [
    "filter.addEventListener('change', () => ((page = 1), void load()));",
    "filter.addEventListener('change', () => void load());",
  ]),
  console_('a refused cancel of a job says nothing', ['catch(g){r.className="status error",r.textContent=Pe(g,"The cancel failed.")}', 'catch(g){}'], [
    "      status.className = 'status error';\n      status.textContent = failureText(failure, 'The cancel failed.');\n",
    '',
  ]),
  console_("a deleted template's health row has no name", ['u.name??`${u.templateId} (deleted)`', 'u.name'], ['row.name ?? `${row.templateId} (deleted)`', 'row.name']),
  console_('no failure rate reads as 0 %', ['u.failureRate===null?"—":', ''], ["row.failureRate === null ? '—' : ", '']),
  console_('long run times keep their tenths', ['n>=1e4?`${(n/1e3).toFixed(0)} s`:', ''], ['value >= 10_000 ? `${(value / 1000).toFixed(0)} s` : ', '']),
  console_('no run time reads as 0.0 s', ['Ye=n=>n===null?"—":', 'Ye=n=>'], ["const ms = (value: number | null): string => (value === null ? '—' : ", 'const ms = (value: number | null): string => (']),
  console_('a new window is not asked for', ['a.addEventListener("change",()=>{r()}),', ''], ["  span.addEventListener('change', () => void load());\n", '']),
];
