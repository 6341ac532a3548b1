import type { Edit, Mutation } from '../mutation.ts';

/**
 * The faults the web user audit found (web-user-form and web-user-history lists), fixed: each fix's guard, in the bundle
 * the browser tests serve (web/dist/app.js, esbuild's minified text: after a rebuild, take the find again if it moved)
 * and in its source (`also`). Their tests are the audit's tests of the faults, and web-user-audit-fixes.test.ts for
 * the guards the fixes added.
 */
const BUNDLE = 'web/dist/app.js';
const FORM = ['tests/browser/web-user-audit-form.test.ts'];
const PAGES = ['tests/browser/web-user-audit-pages.test.ts'];
const HISTORY = ['tests/browser/web-user-audit-history.test.ts'];
const SESSION = ['tests/browser/web-user-audit-session.test.ts'];
const FIXES = ['tests/browser/web-user-audit-fixes.test.ts'];

const both =
  (prefix: string, source: string) =>
  (name: string, tests: string[], bundle: [find: string, replace: string], src: [find: string, replace: string], more: Edit[] = []): Mutation => ({
    name: `web-user-fixes: ${prefix}: ${name}`,
    file: BUNDLE,
    find: bundle[0],
    replace: bundle[1],
    also: [{ file: source, find: src[0], replace: src[1] }, ...more],
    tests,
  });

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
  api('a proxy page as an error body is told as "could not be reached"', SESSION, ['try{let s=JSON.parse(t);if(typeof s?.message=="string")return s}catch{}', 'let s=JSON.parse(t);if(typeof s?.message=="string")return s;'], [
    '  try {\n    const parsed = JSON.parse(text) as Partial<ErrorBody> | null;\n    if (typeof parsed?.message === \'string\') return parsed as ErrorBody;\n  } catch {\n    // Not JSON: told by its status below.\n  }\n',
    '  const parsed = JSON.parse(text) as Partial<ErrorBody> | null;\n  if (typeof parsed?.message === \'string\') return parsed as ErrorBody;\n',
  ]),
  api('a JSON error body without a message is taken as the service\'s', FIXES, ['if(typeof s?.message=="string")return s', 'if(s)return s'], ["if (typeof parsed?.message === 'string') return parsed as ErrorBody;", 'if (parsed) return parsed as ErrorBody;']),

  // The Generate page.
  generate('the outputs of the user before are shown to the next one in the tab', FORM, ['te.userId!==n.user?.id&&(te={userId:n.user?.id,items:[]});', ''], [
    '  if (gallery.userId !== ctx.user?.id) gallery = { userId: ctx.user?.id, items: [] };\n',
    '',
  ]),
  generate('"Not enough coins" stays once the template is payable', FORM, [':l.textContent===Be&&(l.textContent="")', ':void 0'], [
    "    else if (status.textContent === NOT_ENOUGH) status.textContent = '';\n",
    '',
  ]),
  generate('a job ending during a submit enables Generate again', FORM, ['v.disabled=H||!b||b.cost>I,', 'v.disabled=!b||b.cost>I,'], [
    'submit.disabled = submitting || !template || template.cost > balance;',
    'submit.disabled = !template || template.cost > balance;',
  ]),
  generate('a refused submit keeps Generate disabled', [...FORM, 'tests/browser/web-client-audit.test.ts'], ['l.textContent=P(U),H=!1,h();return', 'l.textContent=P(U),h();return'], [
    '            status.textContent = errorText(failure);\n            submitting = false;\n            showCost();',
    '            status.textContent = errorText(failure);\n            showCost();',
  ]),
  generate('a balance that cannot be read after a submit fails the submit', FORM, ['await n.refreshUser().catch(()=>{}),H=!1', 'await n.refreshUser(),H=!1'], [
    '          await ctx.refreshUser().catch(() => undefined);\n',
    '          await ctx.refreshUser();\n',
  ]),

  // The image field.
  form('an untouched colour without a default is sent (black)', FORM, ['read:()=>r()?Je(s.value):void 0', 'read:()=>Je(s.value)'], [
    'read: () => (touched() ? hexToColour(input.value) : undefined)',
    'read: () => hexToColour(input.value)',
  ]),
  form('an untouched checkbox without a default is sent (false)', FORM, ['read:()=>r()?s.checked:void 0', 'read:()=>s.checked'], ['read: () => (touched() ? input.checked : undefined)', 'read: () => input.checked']),
  form('a checkbox or colour the user changed is not sent', FIXES, ['return n.addEventListener("input",()=>a=!0),n.addEventListener("change",()=>a=!0),()=>a', 'return()=>a'], [
    "  input.addEventListener('input', () => (changed = true));\n  input.addEventListener('change', () => (changed = true));\n",
    '',
  ]),
  form('a remixed image does not make the empty file field optional', FORM, ['required:n.required&&!s}', 'required:n.required}'], ['required: parameter.required && !uploadId });', 'required: parameter.required });']),
  form('a cleared remixed image leaves the field optional', FIXES, ['if(s=void 0,r.required=!!n.required,', 'if(s=void 0,'], ['        input.required = Boolean(parameter.required);\n', '']),
  form('an earlier, slower upload sets the image', FORM, ['if(f!==o)return;s=l.id;', 's=l.id;'], ['          (made) => {\n            if (mine !== chosen) return;', '          (made) => {']),
  form("an earlier, slower upload's refusal is shown", FIXES, ['if(f===o)throw g(i,', 'if(!0)throw g(i,'], [
    '          (failure: unknown) => {\n            if (mine !== chosen) return;',
    '          (failure: unknown) => {',
  ]),
  form('a refused upload is not said until the submit', FIXES, ['throw g(i,e("span",{className:"hint error",role:"alert"},P(l))),l', 'throw l'], [
    "            replace(preview, h('span', { className: 'hint error', role: 'alert' }, errorText(failure)));\n",
    '',
  ]),
  form("a refused upload's refusal stays after its file is taken away", FORM, ['d=Promise.resolve(),g(i),', 'g(i),'], ['        pending = Promise.resolve();\n        replace(preview);', '        replace(preview);']),
  form('a refused upload is an unhandled rejection until the submit', FIXES, ['),d.catch(()=>{})})', ')})'], ['        pending.catch(() => undefined);\n', '']),

  // History.
  history('a refused download link says nothing', HISTORY, ['catch(G){w.textContent=G instanceof J?G.message:"Download failed.";return}', 'catch(G){return}'], [
    "        status.textContent = failure instanceof ApiError ? failure.message : 'Download failed.';\n        return;",
    '        return;',
  ]),
  history('Publish stays enabled while it is sent', HISTORY, ['async()=>{u.disabled=!0;try{let x=await p.post(`/my-outputs/', 'async()=>{try{let x=await p.post(`/my-outputs/'], [
    '      // One upload per press: the button stays disabled while it is asked for.\n      button.disabled = true;\n',
    '',
  ]),
  history('Publish stays disabled after an answer', HISTORY, ['"Publishing failed."}finally{u.disabled=!1}', '"Publishing failed."}finally{}'], ['      } finally {\n        button.disabled = false;\n      }\n    });', '      } finally {\n      }\n    });']),
  history('a delete that worked and a list not read again is told as a failed delete', HISTORY, [
    'await S().catch(D=>w.textContent=`${h.fileName} deleted. The list could not be read again: ${P(D)}`)',
    'await S()',
  ], ['      await load().catch((failure: unknown) => (status.textContent = `${item.fileName} deleted. The list could not be read again: ${errorText(failure)}`));', '      await load();']),
  history('a page that answers late replaces the page asked for after it', HISTORY, ['if(h===H){if(E.clear(),', 'if(!0){if(E.clear(),'], ['    if (mine !== loads) return;\n', '']),
  history('a page number past the end stays in the address', FIXES, ['return c=C.totalPages,history.replaceState(null,"",`/history?page=${c}`),S();', 'return c=C.totalPages,S();'], [
    "      page = result.totalPages;\n      history.replaceState(null, '', `/history?page=${page}`);\n",
    '      page = result.totalPages;\n',
  ]),
  history('the tiles do not ask for a fresh view URL', FIXES, ['ee(h,r(h),re)', 'ee(h,r(h))'], ['mediaFor(item, describe(item), renewViewUrl)', 'mediaFor(item, describe(item))']),

  // The view URL asked for again, and the viewer.
  media('a failed fresh view URL is asked for again and again', FIXES, ['s||(s=!0,a(t).then(', '(s=!0,a(t).then('], ['    if (renewed) return;\n', '']),
  media('a fresh view URL is not kept for the next element', FIXES, ['{t.viewUrl=r,n.src=r}', '{n.src=r}'], ['        item.viewUrl = url;\n', '']),
  viewer('the viewer does not ask for a fresh view URL', FIXES, ['this.stage,se(Ht(a,s),a,this.renew))', 'this.stage,Ht(a,s))'], [
    'replace(this.stage, renewOnError(fullMedia(item, caption), item, this.renew));',
    'replace(this.stage, fullMedia(item, caption));',
  ]),

  // API keys.
  keys('"generate" is not ticked again after a key is made', PAGES, ['defaultChecked:v==="generate"', 'checked:v==="generate"'], ["defaultChecked: scope === 'generate'", "checked: scope === 'generate'"]),
  keys('a refused revoke says nothing', PAGES, ['catch(T){s.textContent=P(T);return}s.textContent=`Key "${v.name}" revoked.`', 'catch(T){return}s.textContent=`Key "${v.name}" revoked.`'], [
    '      status.textContent = errorText(failure);\n      return;\n    }\n    status.textContent = `Key "${key.name}" revoked.`;',
    '      return;\n    }\n    status.textContent = `Key "${key.name}" revoked.`;',
  ]),
  keys('Create key stays enabled while the key is made', PAGES, ['v.preventDefault(),w.disabled=!0,s.textContent="";let T=o.fi', 'v.preventDefault(),s.textContent="";let T=o.fi'], [
    '          // One key per press: the button stays disabled while the key is made.\n          create.disabled = true;\n',
    '',
  ]),
  keys('Create key stays disabled after a key is made', PAGES, ['return}finally{w.disabled=!1}E(H.key)', 'return}finally{}E(H.key)'], ['          } finally {\n            create.disabled = false;\n          }', '          } finally {\n          }']),

  // Connections.
  extras('a refused disconnect says nothing', PAGES, ['catch(d){s.textContent=P(d);return}s.textContent=`${o} disconnected.`', 'catch(d){return}s.textContent=`${o} disconnected.`'], [
    '                        status.textContent = errorText(failure);\n                        return;',
    '                        return;',
  ]),

  // Users: one adjustment, one key; a refused search or page is said.
  users('a refused search or page says nothing', PAGES, ['w=()=>f().catch(c=>i.textContent=P(c))', 'w=()=>f()'], [
    'const show = () => load().catch((failure: unknown) => (status.textContent = errorText(failure)));',
    'const show = () => load();',
  ]),
  users('Apply stays enabled while an adjustment is sent', PAGES, ['S.preventDefault(),v.disabled=!0;', 'S.preventDefault();'], ['            apply.disabled = true;\n', '']),
  users('Apply stays disabled after an answer', FIXES, ['"The change failed.";return}finally{v.disabled=!1}', '"The change failed.";return}finally{}'], ['            } finally {\n              apply.disabled = false;\n            }', '            } finally {\n            }']),
  users('each press is a new adjustment (a send that got no answer is made twice)', FIXES, ['reason:"admin_adjustment"},T)}catch', 'reason:"admin_adjustment"},ae())}catch'], [
    "{ amount: Number(amount.value), reason: 'admin_adjustment' }, key);",
    "{ amount: Number(amount.value), reason: 'admin_adjustment' }, uuid());",
  ]),
  users('the key of a success is used again', FIXES, ['finally{v.disabled=!1}$();let C=', 'finally{v.disabled=!1}let C='], ['            another();\n            const done', '            const done']),
  users('a success and a list not read again is told as a failed change', FIXES, [
    'await f().catch(k=>i.textContent=`${C} The list could not be read again: ${P(k)}`)',
    'await f()',
  ], ['await load().catch((failure: unknown) => (status.textContent = `${done} The list could not be read again: ${errorText(failure)}`));', 'await load();']),
  users('the key of a refusal is used again', FIXES, ['catch(k){k instanceof J&&$(),', 'catch(k){'], ['              if (failure instanceof ApiError) another();\n', '']),
  users('another amount is sent under the key of the one before', FIXES, ['return E.addEventListener("input",$),l.addEventListener("change",$),', 'return '], [
    "    amount.addEventListener('input', another);\n    direction.addEventListener('change', another);\n",
    '',
  ]),
];
