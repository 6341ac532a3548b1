import test from 'ava';
import type { ExecutionContext } from 'ava';
import type { Result } from '../../core/domain/result.ts';
import {
  isOutputNodeType,
  MAX_PROBLEMS,
  outputNodeIds,
  validateWorkflowGraph,
} from '../../core/domain/workflow-graph.ts';
import type { WorkflowGraph } from '../../core/domain/workflow-graph.types.ts';

const rejects = (t: ExecutionContext, result: Result<unknown>, field: string, fragment: string): void => {
  if (result.ok) {
    t.fail(`expected a rejection on ${field}`);
    return;
  }
  t.is(result.code, 'VALIDATION.FAILED');
  const problem = result.details?.find((p) => p.field === field);
  t.truthy(problem, `no problem on ${field}; got ${JSON.stringify(result.details)}`);
  t.true(problem!.message.includes(fragment), `"${problem?.message}" lacks "${fragment}"`);
};

const chain = (): Record<string, unknown> => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 64, height: 64, batch_size: 1, color: 0 } },
  '2': { class_type: 'ImageInvert', inputs: { image: [1, 0] } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'out' }, _meta: { title: 'Save' } },
});

test('accepts a valid graph and normalises numeric link sources to strings without touching the input', (t) => {
  const input = chain();
  const before = JSON.stringify(input);
  const result = validateWorkflowGraph(input);
  if (!result.ok) return t.fail(JSON.stringify(result.details));
  t.deepEqual(result.value['2']!.inputs['image'], ['1', 0]);
  t.deepEqual(result.value['3']!._meta, { title: 'Save' });
  t.is(JSON.stringify(input), before);
  t.not(result.value['1'] as unknown, input['1']);
});

test('treats {"__value__": [...]} as a literal, not a link', (t) => {
  const input = chain();
  (input['1'] as { inputs: Record<string, unknown> }).inputs['list'] = { __value__: [99, 0] };
  t.true(validateWorkflowGraph(input).ok);
});

for (const [label, value] of [
  ['an array', []],
  ['null', null],
  ['a string', 'graph'],
] as const) {
  test(`rejects ${label} as the workflow`, (t) => {
    rejects(t, validateWorkflowGraph(value), 'workflow', 'must be an object');
  });
}

test('rejects an empty graph', (t) => {
  rejects(t, validateWorkflowGraph({}), 'workflow', 'at least 1 node');
});

test('rejects more than 500 nodes by default, and more than maxNodes when given', (t) => {
  const big: Record<string, unknown> = {};
  for (let i = 1; i <= 501; i++) big[String(i)] = { class_type: 'SaveImage', inputs: {} };
  rejects(t, validateWorkflowGraph(big), 'workflow', 'at most 500');
  rejects(t, validateWorkflowGraph(chain(), { maxNodes: 2 }), 'workflow', 'has 3 nodes; at most 2');
  delete big['501'];
  t.true(validateWorkflowGraph(big).ok);
});

test('rejects a graph over 1 MiB of JSON, and over maxBytes when given', (t) => {
  const input = chain();
  (input['3'] as { inputs: Record<string, unknown> }).inputs['filename_prefix'] = 'x'.repeat(1_048_576);
  rejects(t, validateWorkflowGraph(input), 'workflow', 'at most 1048576 are allowed');
  rejects(t, validateWorkflowGraph(chain(), { maxBytes: 50 }), 'workflow', 'at most 50 are allowed');
});

test('counts bytes, not characters, against the size limit', (t) => {
  const input = chain();
  (input['3'] as { inputs: Record<string, unknown> }).inputs['filename_prefix'] = 'é'.repeat(600_000);
  rejects(t, validateWorkflowGraph(input), 'workflow', 'bytes as JSON');
});

test('the size limit is exact in UTF-8 bytes for 1-, 2-, 3- and 4-byte characters: at the limit passes, a byte less does not', (t) => {
  for (const text of ['a', 'é', '€', '😀', 'aé€😀']) {
    const input = chain();
    (input['3'] as { inputs: Record<string, unknown> }).inputs['filename_prefix'] = text.repeat(50);
    const bytes = Buffer.byteLength(JSON.stringify(input));
    t.true(validateWorkflowGraph(input, { maxBytes: bytes }).ok, `${text}: ${bytes} bytes at a limit of ${bytes}`);
    rejects(t, validateWorkflowGraph(input, { maxBytes: bytes - 1 }), 'workflow', `is ${bytes} bytes as JSON; at most ${bytes - 1} are allowed`);
  }
});

test('rejects a node that is not an object', (t) => {
  rejects(t, validateWorkflowGraph({ ...chain(), '5': 'SaveImage' }), 'workflow.5', 'must be an object with class_type and inputs');
});

test('rejects a missing or empty class_type', (t) => {
  rejects(t, validateWorkflowGraph({ ...chain(), '5': { inputs: {} } }), 'workflow.5.class_type', 'non-empty string');
  rejects(t, validateWorkflowGraph({ ...chain(), '5': { class_type: ' ', inputs: {} } }), 'workflow.5.class_type', 'non-empty string');
});

test('rejects missing or non-object inputs', (t) => {
  rejects(t, validateWorkflowGraph({ ...chain(), '5': { class_type: 'PreviewImage' } }), 'workflow.5.inputs', 'must be an object');
  rejects(t, validateWorkflowGraph({ ...chain(), '5': { class_type: 'PreviewImage', inputs: [] } }), 'workflow.5.inputs', 'must be an object');
});

test('rejects a link to a node that does not exist', (t) => {
  const input = { ...chain(), '5': { class_type: 'PreviewImage', inputs: { images: [99, 0] } } };
  rejects(t, validateWorkflowGraph(input), 'workflow.5.inputs.images', 'links to node 99, which does not exist');
});

test('rejects a negative output index', (t) => {
  const input = { ...chain(), '5': { class_type: 'PreviewImage', inputs: { images: ['2', -1] } } };
  rejects(t, validateWorkflowGraph(input), 'workflow.5.inputs.images', 'output index must be 0 or more');
});

test('rejects arrays that are not [sourceNodeId, outputIndex]', (t) => {
  for (const bad of [['2', 0.5], ['2'], ['2', 0, 1], [true, 0], ['2', '0']]) {
    const input = { ...chain(), '5': { class_type: 'PreviewImage', inputs: { images: bad } } };
    rejects(t, validateWorkflowGraph(input), 'workflow.5.inputs.images', 'must be a link [sourceNodeId, outputIndex]');
  }
});

test('rejects a cycle and names a node on it', (t) => {
  const input = {
    ...chain(),
    '10': { class_type: 'ImageInvert', inputs: { image: ['11', 0] } },
    '11': { class_type: 'ImageInvert', inputs: { image: ['10', 0] } },
  };
  rejects(t, validateWorkflowGraph(input), 'workflow.11.inputs.image', 'is part of a cycle: 10 -> 11 -> 10');
});

test('rejects a node linked to itself', (t) => {
  const input = { ...chain(), '7': { class_type: 'ImageInvert', inputs: { image: ['7', 0] } } };
  rejects(t, validateWorkflowGraph(input), 'workflow.7.inputs.image', 'cycle: 7 -> 7');
});

test('accepts a diamond, which shares a node but has no cycle', (t) => {
  const input = {
    '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0 } },
    '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
    '3': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
    '4': { class_type: 'ImageBatch', inputs: { image1: ['2', 0], image2: ['3', 0] } },
    '5': { class_type: 'PreviewImage', inputs: { images: ['4', 0] } },
  };
  t.true(validateWorkflowGraph(input).ok);
});

// Pins: a node already checked is not walked again. Each node of this chain takes the one before it twice; walking
// every path instead would visit the first node 2^22 times, seconds of CPU on the request path.
test('a chain of nodes that each take the one before twice is checked at once', (t) => {
  const input: Record<string, unknown> = { '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0 } } };
  for (let id = 2; id <= 23; id += 1) input[String(id)] = { class_type: 'ImageBatch', inputs: { image1: [String(id - 1), 0], image2: [String(id - 1), 0] } };
  input['24'] = { class_type: 'PreviewImage', inputs: { images: ['23', 0] } };
  const started = performance.now();
  const result = validateWorkflowGraph(input);
  const took = performance.now() - started;
  t.true(result.ok);
  t.true(took < 500, `checked in ${took.toFixed(0)} ms`);
});

test('rejects a graph without an output node', (t) => {
  const input = { '1': { class_type: 'EmptyImage', inputs: {} }, '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } } };
  rejects(t, validateWorkflowGraph(input), 'workflow', 'has no output node');
});

test('accepts Preview* output nodes and configured extra output node types', (t) => {
  for (const type of ['PreviewImage', 'PreviewAny', 'PreviewAudio', 'SaveAnimatedWEBP']) {
    t.true(validateWorkflowGraph({ '1': { class_type: type, inputs: {} } }).ok, type);
  }
  const custom = { '1': { class_type: 'VHS_VideoCombine', inputs: {} } };
  rejects(t, validateWorkflowGraph(custom), 'workflow', 'has no output node');
  t.true(validateWorkflowGraph(custom, { outputNodeTypes: ['VHS_VideoCombine'] }).ok);
});

test('rejects node types outside allowedNodeTypes', (t) => {
  const result = validateWorkflowGraph(chain(), { allowedNodeTypes: ['EmptyImage', 'SaveImage'] });
  rejects(t, result, 'workflow.2.class_type', 'node type ImageInvert is not allowed');
  t.true(validateWorkflowGraph(chain(), { allowedNodeTypes: ['EmptyImage', 'ImageInvert', 'SaveImage'] }).ok);
});

test('collects every problem, not only the first', (t) => {
  const input = {
    '1': { class_type: '', inputs: {} },
    '2': { class_type: 'ImageInvert', inputs: { image: ['98', 0] } },
    '3': { class_type: 'ImageInvert', inputs: { image: ['99', 0] } },
  };
  const result = validateWorkflowGraph(input);
  rejects(t, result, 'workflow.1.class_type', 'non-empty');
  rejects(t, result, 'workflow.2.inputs.image', 'node 98');
  rejects(t, result, 'workflow.3.inputs.image', 'node 99');
  rejects(t, result, 'workflow', 'no output node');
});

test('caps the number of problems reported', (t) => {
  const input: Record<string, unknown> = { '0': { class_type: 'SaveImage', inputs: {} } };
  for (let i = 1; i <= 200; i++) input[String(i)] = { class_type: 'ImageInvert', inputs: { image: ['missing', 0] } };
  const result = validateWorkflowGraph(input);
  t.false(result.ok);
  if (!result.ok) t.is(result.details?.length, MAX_PROBLEMS);
});

test('outputNodeIds and isOutputNodeType recognise output nodes', (t) => {
  const graph = chain() as WorkflowGraph;
  t.deepEqual(outputNodeIds(graph), ['3']);
  t.deepEqual(outputNodeIds(graph, ['ImageInvert']), ['2', '3']);
  t.true(isOutputNodeType('SaveVideo'));
  t.true(isOutputNodeType('PreviewAny'));
  t.false(isOutputNodeType('ImageInvert'));
  t.true(isOutputNodeType('VHS_VideoCombine', ['VHS_VideoCombine']));
});

// A literal filename_prefix must name a file inside the output folder (ComfyUI's get_save_image_path rules): the same
// answer on every engine, before a template is stored or a job is paid for.
const withPrefix = (prefix: unknown): Record<string, unknown> => {
  const input = chain();
  (input['3'] as { inputs: Record<string, unknown> }).inputs['filename_prefix'] = prefix;
  return input;
};
for (const [prefix, fragment] of [
  ['', 'names no file'],
  ['.', 'names no file'],
  ['./', 'names no file'],
  ['a/..', 'names no file'],
  ['a\\..', 'names no file'],
  ['/', 'not an absolute one'],
  ['/tmp/out', 'not an absolute one'],
  ['\\out', 'not an absolute one'],
  ['..', 'leads out of the output folder'],
  ['../out', 'leads out of the output folder'],
  ['a/../../out', 'leads out of the output folder'],
  ['a\\..\\..\\out', 'leads out of the output folder'],
] as const) {
  test(`rejects the filename_prefix ${JSON.stringify(prefix)}`, (t) => {
    rejects(t, validateWorkflowGraph(withPrefix(prefix)), 'workflow.3.inputs.filename_prefix', fragment);
  });
}
for (const prefix of ['out', 'images/portrait', 'images/', './out', 'a/../out', 'a/./b/../c', '..out', 'out..', '%year%-%month%/img', 'ComfyUI']) {
  test(`accepts the filename_prefix ${JSON.stringify(prefix)}`, (t) => {
    const result = validateWorkflowGraph(withPrefix(prefix));
    t.true(result.ok, JSON.stringify(result.ok ? null : result.details));
  });
}

test('checks only a literal filename_prefix: a link to a string node, and inputs of other names, pass', (t) => {
  const input = withPrefix(['4', 0]);
  input['4'] = { class_type: 'PrimitiveString', inputs: { value: '' } };
  (input['1'] as { inputs: Record<string, unknown> }).inputs['prefix'] = '/';
  t.true(validateWorkflowGraph(input).ok);
});

test('reports a bad filename_prefix on every node that has one, with the others', (t) => {
  const input = withPrefix('/');
  input['5'] = { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: '..' } };
  input['6'] = { class_type: 'SaveImage', inputs: { images: ['9', 0], filename_prefix: 'fine' } };
  const result = validateWorkflowGraph(input);
  if (result.ok) return t.fail('accepted');
  t.deepEqual(
    result.details?.map((p) => p.field),
    ['workflow.3.inputs.filename_prefix', 'workflow.5.inputs.filename_prefix', 'workflow.6.inputs.images'],
  );
});
