import type { Mutation } from '../mutation.ts';

const PARAMETER_MAP_TEST = 'tests/unit/parameter-map.test.ts';

export const MUTATIONS: Mutation[] = [
  {
    name: 'category rule: every category key demanded whatever the workflow offers',
    file: 'core/domain/category-inputs.ts',
    find: "REQUIRED_BY_CATEGORY[category].filter((key) => workflowCarries(workflow, key))",
    replace: "REQUIRED_BY_CATEGORY[category].filter((key) => workflowCarries(workflow, key) || true)",
    tests: [PARAMETER_MAP_TEST],
  },
];
