/**
 * Issue 4 budget: rendering a 200-node template 10,000 times must take under 1 s in total.
 * The template is validated through the same domain functions the service uses, so the bench
 * measures what a real template costs, not a hand-built shortcut.
 */
import { performance } from 'node:perf_hooks';
import { validateParameterMap } from '../core/domain/parameter-map.ts';
import { renderWorkflow } from '../core/domain/render-workflow.ts';
import { validateWorkflowGraph } from '../core/domain/workflow-graph.ts';
import type { WorkflowGraph } from '../core/domain/workflow-graph.types.ts';

const NODES = 200;
const RENDERS = 10_000;
const BUDGET_MS = 1000;

const buildWorkflow = (): WorkflowGraph => {
  const graph: WorkflowGraph = {
    '1': { class_type: 'EmptyImage', inputs: { width: 512, height: 512, batch_size: 1, color: 0 } },
  };
  // 198 filters between the source and the sink: 200 nodes in all.
  for (let i = 2; i < NODES; i++) {
    const previous: [string, number] = [String(i - 1), 0];
    graph[String(i)] =
      i % 2 === 0
        ? { class_type: 'ImageInvert', inputs: { image: previous } }
        : { class_type: 'ImageBlur', inputs: { image: previous, blur_radius: 1, sigma: 1 } };
  }
  graph[String(NODES)] = { class_type: 'SaveImage', inputs: { images: [String(NODES - 1), 0], filename_prefix: 'bench' } };
  return graph;
};

const graphResult = validateWorkflowGraph(buildWorkflow());
if (!graphResult.ok) throw new Error(`bench workflow invalid: ${JSON.stringify(graphResult.details)}`);
const workflow = graphResult.value;

const mapResult = validateParameterMap(
  {
    prompt: { type: 'string', node_id: String(NODES), input_name: 'filename_prefix', required: true },
    width: { preset: 'width', node_id: '1', input_name: 'width' },
    height: { preset: 'height', node_id: '1', input_name: 'height' },
    batch_size: { preset: 'batch_size', node_id: '1', input_name: 'batch_size' },
    color: { type: 'integer', node_id: '1', input_name: 'color', min: 0, max: 0xffffff, default: 0 },
    seed: { type: 'seed', node_id: '3', input_name: 'blur_radius', min: 0, max: 31 },
    blur_radius: { type: 'integer', node_id: '5', input_name: 'blur_radius', min: 1, max: 31 },
    sigma: { type: 'number', node_id: '5', input_name: 'sigma', min: 0.1, max: 10 },
    sigma_late: { type: 'number', node_id: '99', input_name: 'sigma', min: 0.1, max: 10, default: 2 },
    radius_late: { type: 'enum', node_id: '101', input_name: 'blur_radius', options: [1, 3, 5, 7], default: 3 },
  },
  workflow,
  'text-to-image',
);
if (!mapResult.ok) throw new Error(`bench parameter map invalid: ${JSON.stringify(mapResult.details)}`);
const template = { workflow, parameterMap: mapResult.value };

let state = 42;
const random = (): number => {
  state = (state * 1103515245 + 12345) % 2147483648;
  return state / 2147483648;
};

const parametersFor = (i: number): Record<string, unknown> => ({
  prompt: `run ${i}`,
  width: 512 + (i % 8) * 64,
  height: '768',
  blur_radius: (i % 31) + 1,
  sigma: 1.5,
});

// Warm-up, so the figure reflects steady-state JIT code as in a long-running server.
for (let i = 0; i < 500; i++) renderWorkflow(template, parametersFor(i), random);

const started = performance.now();
let failures = 0;
for (let i = 0; i < RENDERS; i++) {
  if (!renderWorkflow(template, parametersFor(i), random).ok) failures++;
}
const totalMs = performance.now() - started;
if (failures > 0) throw new Error(`${failures} renders failed`);

console.log(
  JSON.stringify({
    bench: 'render-template',
    nodes: Object.keys(workflow).length,
    renders: RENDERS,
    totalMs: Math.round(totalMs * 10) / 10,
    perRenderUs: Math.round((totalMs * 1000) / RENDERS * 10) / 10,
    baseline: '1000 ms budget (issue 4)',
    ratioToBudget: Math.round((totalMs / BUDGET_MS) * 1000) / 1000,
  }),
);
