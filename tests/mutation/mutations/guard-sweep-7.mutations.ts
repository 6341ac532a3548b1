import { type Mutation, webGuard } from '../mutation.ts';

/**
 * The seventh guard sweep (2026-12-07): the web client (web/src), which `npm run mutation:unlisted` did not read
 * before. Of its 119 `if` lines 58 were covered by no entry, and 37 of its 78 expression lines; the 26 that decide what
 * a user sees or what the page sends were made to take one branch always, once each, with the bundle rebuilt from the
 * mutated source.
 * Listed (18): 11 caught at once (the XSRF header, an error answer thrown, the socket's last seq, the signed-in hint
 * at boot, the route found by path, an ended job's row, the panel's order, the viewer's focus trap, the media URL
 * renewed on error, the DOM helper's properties); and 7 caught by new tests in web-client-audit.test.ts (a sound and a
 * video get players, not an image; Ctrl- and Shift-clicks are left to the browser; a publishing event does not bring
 * its job into the panel; a queue update without a position keeps the last one; a running job shows no position; and
 * signing out opens no new socket, a pair: the close handler and its timer each check for a stop).
 *
 * Not listed, with the reason: equivalent (a 204 answered before the body is read, which is empty anyway; the cookie
 * read by name, when XSRF-TOKEN is the only cookie a page can read, the others being HttpOnly); unreachable: the
 * socket's start() when already started (the sign-in page sends a signed-in user to the start page, so no sign-in
 * gives the page a user while its socket runs); left for a later sweep, untested here: the reconnect at once after
 * a 4001 rather than after the backoff, the signed-out handler of a page already signed out, a move to the page
 * already shown adding a history entry, and the template test-run page's event filter (the jobs panel's, tested, is
 * the same line).
 */
const SESSION = 'tests/browser/web-user-audit-session.test.ts';
const AUDIT = 'tests/browser/web-client-audit.test.ts';
const FIXES = 'tests/browser/web-user-audit-fixes.test.ts';
const SHELL = 'tests/browser/web-admin-audit-shell.test.ts';
const FAULTS = 'tests/browser/web-admin-audit-faults.test.ts';
const HISTORY = 'tests/browser/web-user-audit-history.test.ts';
const guard = (source: string, tests: string[]) => webGuard('guard sweep 7', source, tests);
const api = guard('web/src/api.ts', [SESSION, AUDIT, FIXES]);
const socket = guard('web/src/socket.ts', [AUDIT, SESSION]);
const main = guard('web/src/main.ts', [SHELL, FAULTS, SESSION, AUDIT]);
const jobs = guard('web/src/pages/jobs-panel.ts', [AUDIT, SESSION, 'tests/browser/web-user.test.ts']);
const viewer = guard('web/src/viewer.ts', ['tests/browser/web-client-audit-viewer.test.ts', HISTORY]);
const media = guard('web/src/media.ts', [FIXES, HISTORY, AUDIT]);
const dom = guard('web/src/dom.ts', [SHELL, 'tests/browser/web-admin-audit-templates.test.ts', SESSION]);

export const MUTATIONS: Mutation[] = [
  api('a POST, PUT, PATCH or DELETE goes without the XSRF header', ['  if (UNSAFE.has(method)) {', '  if (false as boolean) {']),
  api('an error answer is read as a success', ['if (!res.ok) throw new ApiError(', 'if (false as boolean) throw new ApiError(']),
  socket("the socket does not keep the last event's seq, so a reconnect syncs from the start", ["if (typeof event.seq === 'number') {", 'if (false as boolean) {']),
  socket(
    'after signing out the socket opens again (its close handler and its timer each left without their stop check)',
    ['      if (this.ws !== ws || this.stopped) return;\n      this.ws = null;', '      if (false as boolean) return;\n      this.ws = null;'],
    [{ file: 'web/src/socket.ts', find: '      this.timer = setTimeout(() => {\n        if (this.stopped) return;', replace: '      this.timer = setTimeout(() => {\n        if (false as boolean) return;' }],
  ),
  main('a Ctrl- or Shift-click on a link is taken as a move within the page', ['if (!link || event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;', 'if (!link) return;']),
  main('a page loaded by a signed-in user does not read who is signed in', ['  if (localStorage.getItem(SIGNED_IN_HINT)) {', '  if (false as boolean) {']),
  main('every address shows the first route', ['const route = ROUTES.find((candidate) => candidate.path === location.pathname);', 'const route = ROUTES.find(() => true);']),
  jobs("a publishing event (it names its output's job) brings that job into the jobs panel", ["if (!event.jobId || !event.type.startsWith('job.')) return;", 'if (!event.jobId) return;']),
  jobs('a job listed as ended is not shown as ended', ['if (!ACTIVE.has(job.status)) this.end(', 'if (false as boolean) this.end(']),
  jobs('a queue update without a position erases the position shown', ["if (typeof event.position === 'number') this.job =", 'if (true as boolean) this.job =']),
  jobs('the jobs panel lists jobs it did not choose', ['const ordered = jobs.filter((job) => chosen.has(job.id));', 'const ordered = jobs.filter(() => true);']),
  jobs('a running job shows a queue position', ["if (this.job.status === 'queued' && typeof this.job.position === 'number')", "if (typeof this.job.position === 'number')"]),
  viewer("Shift+Tab on the viewer's first control leaves the dialog", ['if (event.shiftKey && document.activeElement === first) {', 'if (false as boolean) {']),
  viewer("Tab on the viewer's last control leaves the dialog", ['} else if (!event.shiftKey && document.activeElement === last) {', '} else if (false as boolean) {']),
  media('an output whose view URL expired is not loaded again with a fresh one', ['  if (!renew) return element;', '  if (true as boolean) return element;']),
  media('a sound output is shown as an image', ["  if (item.mimeType.startsWith('audio/')) return renewOnError(", '  if (false as boolean) return renewOnError(']),
  media('a video output is shown as an image', ["  if (item.mimeType.startsWith('video/')) {\n    return renewOnError(", '  if (false as boolean) {\n    return renewOnError(']),
  dom("the DOM helper sets element properties as attributes (a control's value, a checkbox's state)", ["} else if (name in element && name !== 'list' && name !== 'form'", "} else if (false as boolean && name !== 'list' && name !== 'form'"]),
];
