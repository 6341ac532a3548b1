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
    find: 'if(l.testRun)return void d.add(l.id);',
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
    find: 'e("td",null,c.engineServer===null?"—":`server ${c.engineServer}`),',
    replace: '',
    also: [
      { file: 'web/src/pages/admin-console.ts', find: "              h('td', null, job.engineServer === null ? '—' : `server ${job.engineServer}`),\n", replace: '' },
      { file: 'web/src/pages/admin-console.ts', find: "'Coins', 'Server', 'Actions'", replace: "'Coins', 'Actions'" },
      { file: BUNDLE, find: '"Coins","Server","Actions"', replace: '"Coins","Actions"' },
    ],
    tests: ['tests/browser/template-test-runs.test.ts'],
  },
  {
    name: "jobs panel: a running job's time left is not shown",
    file: BUNDLE,
    find: ',this.job.status==="running"&&s>0&&a.push(`about ${Ce(s)} left`)',
    replace: '',
    also: [{ file: JOBS_PANEL, find: "    if (this.job.status === 'running' && left > 0) parts.push(`about ${duration(left)} left`);\n", replace: '' }],
    tests: ['tests/browser/web-user.test.ts'],
  },
  {
    name: 'jobs panel: the ETA is not counted down between reports',
    file: BUNDLE,
    find: ',this.active&&this.showQueue(t)}expect',
    replace: '}expect',
    also: [{ file: JOBS_PANEL, find: '    if (this.active) this.showQueue(now);\n', replace: '' }],
    tests: ['tests/browser/web-user.test.ts'],
  },
  {
    name: 'jobs panel: an ETA that has passed is shown as 0 s',
    file: BUNDLE,
    find: 'this.job.status==="queued"&&s>0&&a.push(`done in',
    replace: 'this.job.status==="queued"&&this.doneAt!==null&&a.push(`done in',
    also: [
      { file: BUNDLE, find: 'this.job.status==="running"&&s>0&&a.push(', replace: 'this.job.status==="running"&&this.doneAt!==null&&a.push(' },
      { file: JOBS_PANEL, find: "if (this.job.status === 'queued' && left > 0) parts.push(`done in", replace: "if (this.job.status === 'queued' && this.doneAt !== null) parts.push(`done in" },
      { file: JOBS_PANEL, find: "if (this.job.status === 'running' && left > 0) parts.push(", replace: "if (this.job.status === 'running' && this.doneAt !== null) parts.push(" },
    ],
    tests: ['tests/browser/web-user.test.ts'],
  },
  {
    name: 'jobs panel: a job that starts while the page is open never gets its time left',
    file: BUNDLE,
    find: 'this.showQueue(),this.readRunningEta();break;',
    replace: 'this.showQueue();break;',
    also: [{ file: JOBS_PANEL, find: '        void this.readRunningEta();\n', replace: '' }],
    tests: ['tests/browser/web-user.test.ts'],
  },
  {
    name: 'jobs panel: an ETA report is not taken (the first one stands)',
    file: BUNDLE,
    find: 'this.doneAt=typeof t=="number"?a+t*1e3:null}',
    replace: 'this.doneAt??=typeof t=="number"?a+t*1e3:null}',
    also: [{ file: JOBS_PANEL, find: "    this.doneAt = typeof etaSeconds === 'number' ? now + etaSeconds * 1000 : null;", replace: "    this.doneAt ??= typeof etaSeconds === 'number' ? now + etaSeconds * 1000 : null;" }],
    tests: ['tests/browser/web-user.test.ts'],
  },
];
