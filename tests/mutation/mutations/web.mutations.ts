import type { Mutation } from '../mutation.ts';

const HISTORY = 'core/use-cases/generation/output-history.service.ts';
const DETAILS_TEST = 'tests/integration/output-history-details.test.ts';
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
    file: JOBS_PANEL,
    find: 'if (job.testRun) return void testRuns.add(job.id);',
    replace: '',
    tests: ['tests/browser/template-test-runs.test.ts'],
  },
  {
    name: 'jobs panel: a job.expired event leaves the row queued',
    file: JOBS_PANEL,
    find: "case 'job.expired':\n        this.job = { ...this.job, refundedCoins: Number(event.refunded) || 0 };\n        this.end('expired', []);",
    replace: '',
    tests: ['tests/browser/web-user.test.ts'],
  },
  {
    name: 'admin jobs: the server column shows nothing',
    file: 'web/src/pages/admin-console.ts',
    find: "              h('td', null, job.engineServer === null ? '—' : `server ${job.engineServer}`),\n",
    replace: '',
    also: [
      { file: 'web/src/pages/admin-console.ts', find: "'Coins', 'Server', 'Actions'", replace: "'Coins', 'Actions'" },
    ],
    tests: ['tests/browser/template-test-runs.test.ts'],
  },
  {
    name: "jobs panel: a running job's time left is not shown",
    file: JOBS_PANEL,
    find: "    if (this.job.status === 'running' && left > 0) parts.push(`about ${duration(left)} left`);\n",
    replace: '',
    tests: ['tests/browser/web-user.test.ts'],
  },
  {
    name: 'jobs panel: the ETA is not counted down between reports',
    file: JOBS_PANEL,
    find: '    if (this.active) this.showQueue(now);\n',
    replace: '',
    tests: ['tests/browser/web-user.test.ts'],
  },
  {
    name: 'jobs panel: an ETA that has passed is shown as 0 s',
    file: JOBS_PANEL,
    find: "if (this.job.status === 'queued' && left > 0) parts.push(`done in",
    replace: "if (this.job.status === 'queued' && this.doneAt !== null) parts.push(`done in",
    also: [
      { file: JOBS_PANEL, find: "if (this.job.status === 'running' && left > 0) parts.push(", replace: "if (this.job.status === 'running' && this.doneAt !== null) parts.push(" },
    ],
    tests: ['tests/browser/web-user.test.ts'],
  },
  {
    name: 'jobs panel: a job that starts while the page is open never gets its time left',
    file: JOBS_PANEL,
    find: "        if ('etaSeconds' in event) this.expect(event.etaSeconds);\n        else void this.readRunningEta();\n",
    replace: '',
    tests: ['tests/browser/web-user.test.ts'],
  },
  {
    name: "jobs panel: a job.started's etaSeconds is not taken (the job is read instead)",
    file: JOBS_PANEL,
    find: "        if ('etaSeconds' in event) this.expect(event.etaSeconds);\n        else void this.readRunningEta();\n",
    replace: '        void this.readRunningEta();\n',
    tests: ['tests/browser/web-user.test.ts'],
  },
  {
    name: 'jobs panel: a start event that tells no time left (stored before it did) is not asked about',
    file: JOBS_PANEL,
    find: '        else void this.readRunningEta();\n',
    replace: '',
    tests: ['tests/browser/web-client-audit.test.ts'],
  },
  {
    name: 'jobs panel: an ETA report is not taken (the first one stands)',
    file: JOBS_PANEL,
    find: "    this.doneAt = typeof etaSeconds === 'number' ? now + etaSeconds * 1000 : null;",
    replace: "    this.doneAt ??= typeof etaSeconds === 'number' ? now + etaSeconds * 1000 : null;",
    tests: ['tests/browser/web-user.test.ts'],
  },
];
