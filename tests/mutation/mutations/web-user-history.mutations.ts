import { type Mutation, webGuard } from '../mutation.ts';

/**
 * The user side of the web client not covered by web-client.mutations.ts: the History page (paging, tiles, delete,
 * download, publishing, leaving the page), the viewer's remaining guards, the request helper (api.ts), the sign-in
 * forms (auth.ts) and the socket's sign-out. Each guard is deleted in its
 * source; the runner builds the bundle the browser tests serve from it (webGuard).
 */
const HISTORY_TEST = ['tests/browser/web-user-audit-history.test.ts'];
const SESSION_TEST = ['tests/browser/web-user-audit-session.test.ts'];

const both = (prefix: string, source: string, tests: string[]) => webGuard(`web-user-history: ${prefix}`, source, tests);

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
    ["Math.max(1, Number(params.get('page')) || 1)", "Number(params.get('page')) || 1"],
  ),
  history(
    'a page number that is no number is asked for as NaN',
    ["Math.max(1, Number(params.get('page')) || 1)", "Math.max(1, Number(params.get('page')))"],
  ),
  history('no outputs is "Page 1 of 0"', ['`Page ${page} of ${Math.max(1, totalPages)}`', '`Page ${page} of ${totalPages}`']),
  history(
    'no outputs shows an empty grid',
    ["result.items.length === 0 ? h('li', null, 'Nothing yet: generate something first.') : result.items.map(tile)", 'result.items.map(tile)'],
  ),
  history('the pager leaves the address on the old page', ["        page = next;\n        history.replaceState(null, '', `/history?page=${page}`);\n", '        page = next;\n']),
  // A tile.
  history(
    'a template no longer offered gets a Remix link',
    ['item.templateId ? catalogue.get(item.templateId) : undefined', 'item.templateId ? catalogue.get(item.templateId) ?? { id: item.templateId, parameters: [] } : undefined'],
  ),
  history("a parameter is named by its key, not the template's label", ["h('dt', null, parameter?.label ?? key)", "h('dt', null, key)"]),
  history('an input image is shown as its upload id', ["} else if (parameter?.type === 'image') {", '} else if (false as boolean) {']),
  history(
    "the template's parameter kinds are ignored: any number named colour is a swatch",
    ['const colour = parameter ? isColour(parameter) : /colou?r/i.test(key)', 'const colour = /colou?r/i.test(key)'],
  ),
  history('a colour of a raw workflow is shown as a number', [": /colou?r/i.test(key) && typeof value === 'number'", ': false']),
  history('a swatch has no colour', ['      swatch.style.backgroundColor = colourToHex(value);\n', '']),
  history('an output without template is described as "null"', ["${item.templateName ?? 'Output'}", '${item.templateName}']),
  // Delete and download.
  history('Confirm delete stays enabled while the DELETE runs', ['      remove.disabled = true;\n', '']),
  history('a delete that worked says nothing', ['      status.textContent = `${item.fileName} deleted.`;\n', '']),
  history('a deleted output stays listed', [
    '      await load().catch((failure: unknown) => (status.textContent = `${item.fileName} deleted. The list could not be read again: ${errorText(failure)}`));\n',
    '',
  ]),
  history('a delete that could not be sent says nothing', ["failure.message : 'Delete failed.'", "failure.message : ''"]),
  history('a download is not saved under the file name (the browser opens it)', ['download: item.fileName, ', '']),
  history('each download leaves its hidden link behind', ['      link.remove();\n', '']),
  // Publishing.
  history('an image is offered for publishing', [
    "if (platforms.length === 0 || !item.mimeType.startsWith('video/')) return null;",
    'if (platforms.length === 0) return null;',
  ]),
  history('publishing is offered without a social platform', ['if (platforms.length === 0 || !item.mimeType', 'if (!item.mimeType']),
  history('a failed publication is not marked as an error', ["className: publication.status === 'failed' ? 'hint error' : 'hint'", "className: 'hint'"]),
  history("a published post's link is not shown", ["publication.url ? [' ',", "false ? [' ',"]),
  history("a failed publication's reason is not shown", ['publication.error ? ` (${publication.error})` : null', 'null']),
  history("the publish answer's message is not shown", ['        status.textContent = answer.message;\n', '']),
  history('the publications are not read again after a publish', ['        await showPublications(item.id);\n      } catch', '      } catch']),
  history("a refused publish's reason is not shown", [
    "status.textContent = failure instanceof ApiError ? failure.message : 'Publishing failed.';",
    "status.textContent = 'Publishing failed.';",
  ]),
  history('a publish that could not be sent says nothing', ["failure.message : 'Publishing failed.'", "failure.message : ''"]),
  history('publish events do not update the page', [
    "if (event.type.startsWith('publish.') && typeof event.outputId === 'string') void showPublications(event.outputId);",
    '',
  ]),
  history('an event of an output not on the page asks the server about it', ['    if (!state) return;\n', '']),
  history('outputs of the page before are still asked about', ['    publicationStates.clear();\n', '']),
  // Leaving the page.
  history('the page keeps listening to events after it was left', ['    off();\n    viewer.dispose();', '    viewer.dispose();']),
  history('the viewer is left in the document after the page was left', ['    off();\n    viewer.dispose();', '    off();']),

  viewer('Left in a focused video moves to another output', ["if (event.key === 'ArrowLeft' && !inMedia) {", "if (event.key === 'ArrowLeft') {"]),
  viewer('Right in a focused video moves to another output', ["} else if (event.key === 'ArrowRight' && !inMedia) {", "} else if (event.key === 'ArrowRight') {"]),
  viewer('a closed viewer keeps its media (a video plays on)', ['    replace(this.stage);\n    if (this.opener', '    if (this.opener']),

  // The request helper.
  api('a refused sign-in (401) asks for a refresh', ['res.status === 401 && !NO_REFRESH.has(path)', 'res.status === 401']),
  api('401s at once refresh the session once each', ['refreshing ??= send(', 'refreshing = send(']),
  api('a later 401 reuses the first refresh (and is not refreshed)', ['\n    .finally(() => {\n      refreshing = null;\n    });', ';']),
  api('a refresh that cannot be sent leaves the page signed in and failing', ['    .catch(() => false)\n', '']),
  api('a Generate request loses its idempotency key', ["  if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;\n", '']),
  // The sign-in and sign-up forms.
  auth('the button stays enabled while signing in', ['            submit.disabled = true;\n', '']),
  auth('an earlier error stays while signing in again', ["            status.textContent = '';\n", '']),
  auth('a refused sign-in leaves the button disabled', ['              submit.disabled = false;\n', '']),
  auth('an unreachable service says nothing', [
    'status.textContent = errorText(failure);',
    "status.textContent = failure instanceof ApiError ? failure.message : '';",
  ]),
  auth('a known provider error is shown by its code only', ['PROVIDER_ERRORS[error] ?? ', '']),
  auth('an unknown provider error does not name its code', ['`Sign-in with the provider failed (${error}).`', "'Sign-in with the provider failed.'"]),
  auth('a provider error is not shown', ['if (error) status.textContent', 'if (false as boolean) status.textContent']),
  auth('the provider buttons are not offered', ['ctx.features.oidcProviders.length > 0', 'false']),
  auth("a provider button is named by the provider's key", ['key.charAt(0).toUpperCase() + key.slice(1)', 'key']),
  auth('back from a provider the page does not read the profile (no signed-in hint)', ["on: { click: () => localStorage.setItem('signed-in', '1') }", 'on: {}']),
  auth('the sign-up form focuses the email, not its first field', ["(mode === 'signup' ? displayName : givenEmail ? password : email).focus();", '(givenEmail ? password : email).focus();']),
  auth('a password under 8 characters is sent to register', ["minLength: mode === 'signup' ? 8 : undefined,", '']),
  auth('sign-up signs in without registering', ["if (mode === 'signup') await api.post('/auth/register'", "if (false as boolean) await api.post('/auth/register'"]),
  // The socket on sign-out.
  socket('the next session syncs from the last seq of the one before', ['    this.lastSeq = null;\n  }\n\n  /** Drops', '  }\n\n  /** Drops']),
  socket('signing out leaves the socket open', ["    this.ws?.close(1000, 'signed out');\n", '']),
  // The jobs panel (guards not listed in web-client.mutations.ts or web.mutations.ts).
  jobs('"No jobs yet." stays under the jobs', ['    empty.hidden = rows.size > 0;\n', '']),
  jobs('no jobs shows nothing', ['empty.hidden = rows.size > 0;', 'empty.hidden = true;']),
  jobs('Cancel stays enabled while its request runs', [
    "    this.cancel.disabled = true;\n    this.message.textContent = '';",
    "    this.message.textContent = '';",
  ]),
  jobs("a cancel's earlier error stays while it is tried again", [
    "    this.cancel.disabled = true;\n    this.message.textContent = '';",
    '    this.cancel.disabled = true;',
  ]),
  jobs("each event of a test run fetches it again", ['    if (testRuns.has(event.jobId)) return;\n', '']),
  jobs('a job whose fetch failed is never fetched again', ['\n      .finally(() => fetching.delete(id));', ';']),
  jobs('a submitted job already shown from its event gets a second row', ['    if (rows.has(job.id)) return;\n', '']),
  socket('a message that is no JSON throws in the page', [
    '      let event: ServerEvent;\n      try {\n        event = JSON.parse(String(message.data)) as ServerEvent;\n      } catch {\n        return;\n      }',
    '      const event = JSON.parse(String(message.data)) as ServerEvent;',
  ]),
  dom("a field's hint does not describe it", ["  if (hintEl) control.setAttribute('aria-describedby', hintEl.id);\n", '']),
  history('an output with only a prompt shows an empty Parameters list', ['  if (entries.length === 0) return null;\n', '']),
];
