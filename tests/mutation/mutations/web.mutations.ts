import type { Mutation } from '../mutation.ts';

const HISTORY = 'core/use-cases/generation/output-history.service.ts';
const DETAILS_TEST = 'tests/integration/output-history-details.test.ts';

/** The server side of the web client's history (issue 24): what GET /my-outputs tells about each output. */
export const MUTATIONS: Mutation[] = [
  {
    name: 'history: listed outputs lose their template name',
    file: HISTORY,
    find: 'templateName: (item.templateId && names.get(item.templateId)) ?? null',
    replace: 'templateName: null',
    tests: [DETAILS_TEST],
  },
];
