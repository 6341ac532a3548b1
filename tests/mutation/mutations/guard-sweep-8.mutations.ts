import { type Mutation, webGuard } from '../mutation.ts';

/**
 * The eighth guard sweep (2026-12-07): the web client's guards that sweep 7 left untested, and the guards of a look at
 * every page in a browser (at 1280 and 390 px) that found a few things a user sees wrong.
 * Sweep 7's leftovers, each now caught by a new test in web-client-audit.test.ts: a move to the page already shown added
 * a step to Back; a refusal that came back after signing out sent the sign-in page to itself, dropping what the user had
 * typed; a socket closed for an expired token (4001) waited the dropped connection's backoff before renewing the session
 * (measured by the page's clock: 20 ms at once, 255 ms with the backoff; the test allows 150).
 * The look at the pages: "1 coins"; a "This session" heading over an empty gallery; a table's white box as wide as the
 * page beside narrow columns; each template's six buttons and each user's two labels repeating the row's name to the
 * eye (kept in their accessible names, for a control heard alone: `aria-label` on the buttons, hidden words in the
 * labels); and those hidden words, placed past a scrolling table's edge, widening a phone's page (ADR 061). And a
 * workflow's text outputs (the server sends them; the jobs panel showed none): a succeeded row now shows them. And
 * platforms named by identifier ("Connect YOUTUBE") in pages and messages: named as people write them now.
 *
 * Not listed: the template test run's `job.` event filter (equivalent: its handler ignores every other event type, and
 * the ones kept for a job not yet known are bounded).
 */
const AUDIT = 'tests/browser/web-client-audit.test.ts';
const USER = 'tests/browser/web-user.test.ts';
const PAGES = 'tests/browser/web-user-audit-pages.test.ts';
const guard = (source: string, tests: string[]) => webGuard('guard sweep 8', source, tests);
const main = guard('web/src/main.ts', [AUDIT]);
const socket = guard('web/src/socket.ts', [AUDIT]);
const dom = guard('web/src/dom.ts', [USER, 'tests/browser/web-user-audit-form.test.ts']);
const jobs = guard('web/src/pages/jobs-panel.ts', [AUDIT, 'tests/browser/web-app.test.ts']);
const css = guard('web/src/app.css', [PAGES, USER]);

export const MUTATIONS: Mutation[] = [
  main('a move to the page already shown adds a step to Back', ['    if (path !== location.pathname + location.search) history.pushState(', '    if (true as boolean) history.pushState(']),
  main('a refusal after signing out sends the sign-in page to itself, dropping what was typed', ['setSignedOutHandler(() => {\n  if (!ctx.user) return;', 'setSignedOutHandler(() => {\n  if (false as boolean) return;']),
  socket("a socket closed for an expired token waits a dropped connection's backoff before renewing the session", ['      }, close.code === TOKEN_EXPIRED ? 0 : delay);', '      }, delay);']),
  dom('one coin is "1 coins"', ["`${n} ${n === 1 ? 'coin' : 'coins'}`", "`${n} coins`"]),
  guard('web/src/pages/admin-templates.ts', ['tests/browser/admin-templates.test.ts'])(
    "each template's buttons show its name again to the eye",
    ["'aria-label': `${action}${named}`, on: { click: run } }, action);", 'on: { click: run } }, `${action}${named}`);'],
  ),
  guard('web/src/pages/admin-users.ts', [PAGES])(
    "each user's adjustment labels show the row's email again to the eye",
    ["field(['Direction', unseen(` for ${user.email}`)], direction),", "field(['Direction', ` for ${user.email}`], direction),"],
    [{ file: 'web/src/pages/admin-users.ts', find: "field(['Coins', unseen(` for ${user.email}`)], amount),", replace: "field(['Coins', ` for ${user.email}`], amount)," }],
  ),
  guard('web/src/pages/generate.ts', ['tests/browser/web-app.test.ts'])('"This session" is shown over an empty gallery', [
    '    gallerySection.hidden = gallery.items.length === 0;',
    '    gallerySection.hidden = false as boolean;',
  ]),
  jobs("a listed job's text outputs are not shown", ["    if (job.status === 'succeeded') this.showTexts(", "    if (false as boolean) this.showTexts("]),
  jobs("a completion event's texts are not shown (only a reload shows them)", [
    "        this.showTexts(Array.isArray(event.texts) ? event.texts.map(String) : []);\n",
    '',
  ]),
  jobs('an empty text output is shown as an empty paragraph', ["const texts = all.filter((text) => text.trim() !== '');", 'const texts = all;']),
  guard('web/src/pages/extras.ts', [PAGES, 'tests/browser/web-user-audit-history.test.ts'])('the pages name platforms by identifier ("Connect YOUTUBE")', [
    'PLATFORM_NAMES[platform] ?? platform;',
    'platform;',
  ]),
  {
    name: 'guard sweep 8: messages name platforms by identifier ("Publishing to YOUTUBE has started")',
    file: 'core/domain/social.ts',
    find: '(platform: SocialPlatform): string => PLATFORM_NAMES[platform];',
    replace: '(platform: SocialPlatform): string => platform;',
    tests: ['tests/integration/social-audit.test.ts', 'tests/unit/social-connect.test.ts', 'tests/unit/token-cipher-audit.test.ts'],
  },
  css("a table's white box is as wide as the page beside narrow columns", ['table { position: relative; width: max-content;', 'table { position: relative; width: 100%;']),
  css("words hidden for screen readers in a table widen a phone's page", ['table { position: relative; width: max-content;', 'table { width: max-content;']),
];
