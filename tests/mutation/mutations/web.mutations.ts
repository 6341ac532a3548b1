import type { Mutation } from '../mutation.ts';

const HISTORY = 'core/use-cases/generation/output-history.service.ts';
const DETAILS_TEST = 'tests/integration/output-history-details.test.ts';
/**
 * The browser tests serve the committed bundle (web/dist), so a guard of the web client is mutated there, beside its
 * source; the bundle's text is esbuild's (rebuild, then take the find from web/dist/app.js again if it moved).
 */
const BUNDLE = 'web/dist/app.js';
const JOBS_PANEL = 'web/src/pages/jobs-panel.ts';

/** The server side of the web client's history (issue 24): what GET /my-outputs tells about each output. */
export const MUTATIONS: Mutation[] = [
  {
    name: 'history: listed outputs lose their template name',
    file: HISTORY,
    find: 'templateName: (item.templateId && names.get(item.templateId)) ?? null',
    replace: 'templateName: null',
    tests: [DETAILS_TEST],
  },
  {
    name: "jobs panel: a test run's events put it in the Jobs panel (ADR 043)",
    file: BUNDLE,
    find: 'if(l.testRun)return void u.add(l.id);',
    replace: '',
    also: [{ file: JOBS_PANEL, find: 'if (job.testRun) return void testRuns.add(job.id);', replace: '' }],
    tests: ['tests/browser/template-test-runs.test.ts'],
  },
  {
    name: 'jobs panel: a job.expired event leaves the row queued',
    file: BUNDLE,
    find: 'case"job.expired":this.job={...this.job,refundedCoins:Number(t.refunded)||0},this.end("expired",[]);',
    replace: '',
    also: [{ file: JOBS_PANEL, find: "case 'job.expired':\n        this.job = { ...this.job, refundedCoins: Number(event.refunded) || 0 };\n        this.end('expired', []);", replace: '' }],
    tests: ['tests/browser/web-user.test.ts'],
  },
  {
    name: 'admin jobs: the server column shows nothing',
    file: BUNDLE,
    find: 'e("td",null,f.engineServer===null?"—":`server ${f.engineServer}`),',
    replace: '',
    also: [
      { file: 'web/src/pages/admin-console.ts', find: "              h('td', null, job.engineServer === null ? '—' : `server ${job.engineServer}`),\n", replace: '' },
      { file: 'web/src/pages/admin-console.ts', find: "'Coins', 'Server', 'Actions'", replace: "'Coins', 'Actions'" },
      { file: BUNDLE, find: '"Coins","Server","Actions"', replace: '"Coins","Actions"' },
    ],
    tests: ['tests/browser/template-test-runs.test.ts'],
  },
];
