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
    ['if(t?.access==="admin"&&M.user?.role!=="admin")return M.navigate("/?denied=admin");', ''],
    ["  if (route?.access === 'admin' && ctx.user?.role !== 'admin') return ctx.navigate('/?denied=admin');\n", ''],
  ),
  shell(
    'a signed-out visitor is not sent to sign in',
    ['if(t&&t.access!=="public"&&!M.user)return M.navigate(`/login?next=${encodeURIComponent(location.pathname)}`);', ''],
    ["  if (route && route.access !== 'public' && !ctx.user) return ctx.navigate(`/login?next=${encodeURIComponent(location.pathname)}`);\n", ''],
  ),
  shell(
    'sign-in does not come back to the page asked for',
    ['if(t&&t.access!=="public"&&!M.user)return M.navigate(`/login?next=${encodeURIComponent(location.pathname)}`);', 'if(t&&t.access!=="public"&&!M.user)return M.navigate("/login");'],
    ["if (route && route.access !== 'public' && !ctx.user) return ctx.navigate(`/login?next=${encodeURIComponent(location.pathname)}`);", "if (route && route.access !== 'public' && !ctx.user) return ctx.navigate('/login');"],
  ),
  shell('a signed-in user is shown the sign-in page', ['if(t?.access==="public"&&M.user)return M.navigate("/");', ''], ["  if (route?.access === 'public' && ctx.user) return ctx.navigate('/');\n", '']),
  shell('an unknown path shows no not-found page', ['if(be.replaceWith(a),be=a,!t){document.title="Not found', 'if(be.replaceWith(a),be=a,!1){document.title="Not found'], ['  if (!route) {\n', '  if (false as boolean) {\n']),
  // Fixed faults (the audit's faults file): a page left while it loaded, a page whose data was refused.
  fixedShell(
    'a page left while it loaded replaces the page opened after it (one main for every page, no render count)',
    ['let a=pt();if(be.replaceWith(a),be=a,!t)', 'let a=be;if(g(a),!t)'],
    ['  const view = newMain();\n  main.replaceWith(view);\n  main = view;\n', '  const view = main;\n  replace(view);\n'],
    [
      { file: BUNDLE, find: 'n===Me?ye=s:typeof s=="function"&&s()', replace: 'ye=s' },
      { file: 'web/src/main.ts', find: "    if (mine === renders) cleanup = done;\n    else if (typeof done === 'function') done();", replace: '    cleanup = done;' },
    ],
  ),
  fixedShell('a page whose data is refused is left blank', ['catch(s){if(n===Me){', 'catch(s){if(!1){'], ['    if (mine === renders) {\n      const again', '    if (false as boolean) {\n      const again']),
  // What the navigation offers.
  shell('a user is offered the admin links', ['(a.access!=="admin"||M.user?.role==="admin")', '!0'], ["(route.access !== 'admin' || ctx.user?.role === 'admin')", 'true']),
  shell('every link is marked as the current page', ['"aria-current":a.path===n?"page":void 0', '"aria-current":"page"'], ["'aria-current': route.path === current ? 'page' : undefined", "'aria-current': 'page'"]),
  shell('Connections is offered without a social platform', ['nav:n=>n.features.socialPlatforms.length>0', 'nav:()=>!0'], ['nav: (ctx) => ctx.features.socialPlatforms.length > 0', 'nav: () => true']),
  shell('Chat is offered without the chat feature', ['nav:n=>n.features.chat}', 'nav:()=>!0}'], ['nav: (ctx) => ctx.features.chat }', 'nav: () => true }']),
  shell('signing out keeps the signed-in hint', ['localStorage.removeItem(Ie),', ''], ['      localStorage.removeItem(SIGNED_IN_HINT);\n', '']),

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
  dom('an absent attribute is set as its text', ['if(i===!1||i===null||i===void 0)continue;', ''], ['    } else if (value === false || value === null || value === undefined) {\n      continue;\n', '']),

  // The templates page: step 1, a new workflow, the list's actions.
  templates('a workflow that is not JSON is sent anyway', ['catch{a.textContent=s;return}', 'catch{a.textContent=s}'], ['            line.textContent = invalid;\n            return;', '            line.textContent = invalid;']),
  templates("a refusal of the workflow's save is not shown", ['catch(w){a.textContent=P(w)}}}},...i)', 'catch(w){}}}},...i)'], ['            line.textContent = errorText(failure);\n', '']),
  templates('an earlier refusal stays after a save worked', ['o.preventDefault(),a.textContent="";let d;', 'o.preventDefault();let d;'], ["          line.textContent = '';\n", '']),
  templates('the create form keeps the last template after a create', ['workflow:u});k.reset(),', 'workflow:u});'], ['      createForm.reset();\n', '']),
  templates('an empty description is sent as ""', ['description:v.value||void 0', 'description:v.value'], ['description: description.value || undefined', 'description: description.value']),
  fixedTemplates('a saved map after an earlier refusal is shown as an error', ['r.className="status",r.textContent=`Saved ${R.name}', 'r.textContent=`Saved ${R.name}'], ["              status.className = 'status';\n              status.textContent = `Saved", '              status.textContent = `Saved']),
  fixedTemplates('two parameters with the same key are sent as one', ['if(j!==void 0){U.textContent=`Two parameters', 'if(!1){U.textContent=`Two parameters'], ['            if (twice !== undefined) {', '            if (false as boolean) {']),
  fixedTemplates('a change whose list cannot be read again says only that it worked', ['catch(I){A=`${A} The list could not be read again: ${P(I)}`,b=!0}', 'catch(I){}'], ['      message = `${message} The list could not be read again: ${errorText(failure)}`;\n      failed = true;\n', '']),
  templates("a refused change says it worked", ['catch(I){b=!0,A=P(I)}', 'catch(I){b=!0}'], ['      message = errorText(failure);\n', '']),
  templates('a refused change is not marked as an error', ['r.className=b?"status error":"status"', 'r.className="status"'], ["status.className = failed ? 'status error' : 'status';", "status.className = 'status';"]),
  templates('a published template offers Publish, not Back to draft', ['u.status==="draft"?x(', '!0?x('], ["      template.status === 'draft'\n        ? button(", '      true\n        ? button(']),
  templates('an inactive template offers Deactivate, not Activate', ['u.isActive?x(', '!0?x('], ['      template.isActive\n        ? button(', '      true\n        ? button(']),
  templates('Delete deletes without asking', ['window.confirm(`Delete ${u.name}? Jobs that ran it keep their history.`)&&', ''], [
    'if (window.confirm(`Delete ${template.name}? Jobs that ran it keep their history.`)) void',
    'void',
  ]),
  // Step 2: the parameter map.
  templates('a required parameter can be removed', ['_?null:e("button",{type:"button",className:"link"', 'e("button",{type:"button",className:"link"'], ['        locked\n          ? null\n          : h(', '        h(']),
  templates('a required preset is added twice', ['Re.has(m.key)&&!G().has(m.key)&&ne(', 'Re.has(m.key)&&ne('], ['if (required.has(preset.key) && !used().has(preset.key)) addRow(', 'if (required.has(preset.key)) addRow(']),
  templates('a linked input is offered as a value to set', ['.filter(([,O])=>!Ot(O))', ''], ['.filter(([, value]) => !isLink(value))', '']),
  templates('a used preset is offered again', ['_=x.filter(j=>!m.has(j.key))', '_=x'], ['const free = presets.filter((preset) => !taken.has(preset.key));', 'const free = presets;']),
  templates('Add preset stays enabled when every preset is used', ['z.disabled=_.length===0', 'z.disabled=!1'], ['addPreset.disabled = free.length === 0;', 'addPreset.disabled = false;']),
  templates('the negative prompt row comes back to a saved map', ['Ae.length===0&&X&&', 'X&&'], ['existing.length === 0 && negative &&', 'negative &&']),
  templates('min above max is accepted', ['j.setCustomValidity(O>Y?"Min must not be above max.":"")', 'j.setCustomValidity("")'], ["min.setCustomValidity(low > high ? 'Min must not be above max.' : '');", "min.setCustomValidity('');"]),
  templates('a default outside min and max is accepted', ['||m.default<O||m.default>Y', ''], [' || item.default < low || item.default > high', '']),
  templates('a default that is not a number is accepted', ['Number.isNaN(m.default)||', ''], ['Number.isNaN(item.default) || ', '']),
  templates('a numeric default is kept as text', ['q?Number(V):m.type==="boolean"', 'q?V:m.type==="boolean"'], ["numeric ? Number(text) : item.type === 'boolean'", "numeric ? text : item.type === 'boolean'"]),
  templates('a boolean default is sent as text', ['m.type==="boolean"?V==="true":V', 'V'], ["item.type === 'boolean' ? text === 'true' : text", 'text']),

  // A test run's card.
  testRun("another job's events move the card", ['if(k.jobId===E)return H(k);', 'return H(k);'], ['    if (event.jobId === current) return apply(event);', '    return apply(event);']),
  testRun('events that come before the 202 are lost', ['for(let u of l.get(y.id)??[])E===y.id&&H(u);', ''], ['            for (const seen of early.get(job.id) ?? []) if (current === job.id) apply(seen);\n', '']),
  testRun('Start stays enabled while a run runs', ['s.textContent="",r.disabled=!0;try', 's.textContent="";try'], ['          start.disabled = true;\n', '']),
  testRun('Start stays disabled after the run ended', ['d.hidden=!0,r.disabled=!1,o.textContent=k', 'd.hidden=!0,o.textContent=k'], ['    start.disabled = false;\n    text.textContent = message;', '    text.textContent = message;']),
  testRun('Cancel stays after the run ended', ['E=null,d.hidden=!0,r.disabled=!1', 'E=null,r.disabled=!1'], ['    cancel.hidden = true;\n    start.disabled = false;', '    start.disabled = false;']),
  testRun('a refused start leaves Start disabled', ['T()}catch(y){s.textContent=P(y),r.disabled=!1}', 'T()}catch(y){s.textContent=P(y)}'], [
    '            formStatus.textContent = errorText(failure);\n            start.disabled = false;',
    '            formStatus.textContent = errorText(failure);',
  ]),
  testRun("a refused start's reason is not shown", ['T()}catch(y){s.textContent=P(y),r.disabled=!1}', 'T()}catch(y){r.disabled=!1}'], [
    '            formStatus.textContent = errorText(failure);\n            start.disabled = false;',
    '            start.disabled = false;',
  ]),
  testRun("a refused cancel's reason is not shown", ['/cancel`)}catch(k){s.textContent=P(k)}finally', '/cancel`)}catch(k){}finally'], ['      formStatus.textContent = errorText(failure);\n    } finally', '    } finally']),
  testRun('a refused cancel leaves Cancel disabled', ['finally{u.disabled=!1}', 'finally{}'], ['      cancel.disabled = false;\n', '']),
  testRun("a failed run's reason is not shown", ['$(`Failed: ${k.error?.message??"unknown error"}`)', '$("Failed: unknown error")'], [
    "ended(`Failed: ${(event.error as { message?: string } | undefined)?.message ?? 'unknown error'}`);",
    "ended('Failed: unknown error');",
  ]),
  testRun('progress events do not move the bar', ['i.max=Number(k.max)||1,i.value=Number(k.value)||0;break;', 'break;'], [
    '        bar.max = Number(event.max) || 1;\n        bar.value = Number(event.value) || 0;\n',
    '',
  ]),
  testRun("a completed run's bar is not full", ['i.value=i.max;let y', 'let y'], ['        bar.value = bar.max;\n', '']),
  testRun('one output is called outputs', ['y.length===1?"":"s"', '"s"'], ["outputs.length === 1 ? '' : 's'", "'s'"]),
  testRun("a failed run's error is not listed", ['y.error?e("span",{className:"hint error"},y.error.message):null', 'null'], ["run.error ? h('span', { className: 'hint error' }, run.error.message) : null", 'null']),
  testRun('a run without text outputs gets an empty text line', ['y.textOutputs.length>0?e(', '!0?e('], ['run.textOutputs.length > 0 ? h(', 'true ? h(']),
  testRun('an unknown version is shown as undefined', ['y.templateVersion??"?"', 'y.templateVersion'], ["run.templateVersion ?? '?'", 'run.templateVersion']),

  // The admin console.
  console_('a failed load is not told', ['catch(o){s.className="status error",s.textContent=Se(o,`Could not load the ${t.toLowerCase()}.`)}', 'catch(o){}'], [
    "    } catch (failure) {\n      status.className = 'status error';\n      status.textContent = failureText(failure, `Could not load the ${title.toLowerCase()}.`);\n    }",
    '    } catch {}',
  ]),
  console_("a failed load's reason is not shown", ['s.textContent=Se(o,`Could not load', 's.textContent=Se(null,`Could not load'], ['status.textContent = failureText(failure, `Could not load', 'status.textContent = failureText(null, `Could not load']),
  console_('a down server is shown healthy', ['o.healthy?"Healthy":`Down: ${o.error??"no answer"}`', '"Healthy"'], ["server.healthy ? 'Healthy' : `Down: ${server.error ?? 'no answer'}`", "'Healthy'"]),
  console_("a down server's missing error is shown as null", ['o.error??"no answer"', 'o.error'], ["server.error ?? 'no answer'", 'server.error']),
  console_('an unknown count is a blank cell', ['o.running??"—"', 'o.running'], ["server.running ?? '—'", 'server.running']),
  console_('an incomplete queue list reads as complete', ['f.complete?".":" (the first 50 shown; more wait)."', '"."'], ["queue.complete ? '.' : ' (the first 50 shown; more wait).'", "'.'"]),
  console_('nothing waiting reads as blank', ['.join(", ")||"nothing"', '.join(", ")'], [".join(', ') || 'nothing'", ".join(', ')"]),
  console_('a dead letter without a job shows no summary', ['d=f=>f.jobId?e("code",null,f.jobId):e("code",null,f.summary)', 'd=f=>e("code",null,f.jobId)'], [
    "(message.jobId ? h('code', null, message.jobId) : h('code', null, message.summary))",
    "h('code', null, message.jobId)",
  ]),
  console_('Discard redrives the dead letter', ['c==="redrive"?await p.post(', '!0?await p.post('], ["if (action === 'redrive') await api.post(", 'if (true as boolean) await api.post(']),
  console_('a refused queue action says nothing', ['catch(E){i.className="status error",i.textContent=Se(E,"That did not work.")}', 'catch(E){}'], [
    "      status.className = 'status error';\n      status.textContent = failureText(failure, 'That did not work.');\n",
    '',
  ]),
  console_('a test run is not marked in the jobs', ['c.testRun?`${c.status} (test run)`:c.status', 'c.status'], ['job.testRun ? `${job.status} (test run)` : job.status', 'job.status']),
  console_('a user without an email is a blank cell', ['e("td",null,c.userEmail??c.userId)', 'e("td",null,c.userEmail)'], ["h('td', null, job.userEmail ?? job.userId)", "h('td', null, job.userEmail)"]),
  console_('a new filter stays on the page it was on', ['a.addEventListener("change",()=>(o=1,void w()))', 'a.addEventListener("change",()=>void w())'], [
    "filter.addEventListener('change', () => ((page = 1), void load()));",
    "filter.addEventListener('change', () => void load());",
  ]),
  console_('a refused cancel of a job says nothing', ['catch(c){i.className="status error",i.textContent=Se(c,"The cancel failed.")}', 'catch(c){}'], [
    "      status.className = 'status error';\n      status.textContent = failureText(failure, 'The cancel failed.');\n",
    '',
  ]),
  console_("a deleted template's health row has no name", ['d.name??`${d.templateId} (deleted)`', 'd.name'], ['row.name ?? `${row.templateId} (deleted)`', 'row.name']),
  console_('no failure rate reads as 0 %', ['d.failureRate===null?"—":', ''], ["row.failureRate === null ? '—' : ", '']),
  console_('long run times keep their tenths', ['n>=1e4?`${(n/1e3).toFixed(0)} s`:', ''], ['value >= 10_000 ? `${(value / 1000).toFixed(0)} s` : ', '']),
  console_('no run time reads as 0.0 s', ['at=n=>n===null?"—":', 'at=n=>'], ["const ms = (value: number | null): string => (value === null ? '—' : ", 'const ms = (value: number | null): string => (']),
  console_('a new window is not asked for', ['a.addEventListener("change",()=>{i()}),', ''], ["  span.addEventListener('change', () => void load());\n", '']),
];
