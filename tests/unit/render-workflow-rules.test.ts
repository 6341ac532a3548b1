import test from 'ava';
import type { ParameterMap } from '../../core/domain/parameter-map.ts';
import { checkConformance, randomSeed, renderWorkflow, sameValue, type RenderTemplate } from '../../core/domain/render-workflow.ts';
import type { Result } from '../../core/domain/result.ts';
import type { WorkflowGraph } from '../../core/domain/workflow-graph.types.ts';
import { MAX_PROBLEMS } from '../../core/domain/workflow-graph.ts';

// The finer rules of rendering a template and of checking a submitted workflow against it, each pinned on its own.

const half = () => 0.5;
const fieldsOf = (result: Result<unknown>) => (result.ok ? [] : (result.details ?? []).map((p) => p.field));
const messagesOf = (result: Result<unknown>) => (result.ok ? [] : (result.details ?? []).map((p) => p.message));

const graph = (): WorkflowGraph => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 16, height: 8, batch_size: 1, color: 0 } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'out' } },
});
const simple = (parameterMap: ParameterMap, workflow = graph()): RenderTemplate => ({ workflow, parameterMap });

// Pins: a random seed is a 32-bit unsigned number within the item's bounds, whatever bounds the map gives (a
// negative min, a max past 32 bits), and never past its max even when random() returns its largest values.
test('random seeds stay within 0..2^32-1 and the item bounds', (t) => {
  t.is(randomSeed(() => 0, -5, 10), 0);
  t.is(randomSeed(() => 0.999999999999, 0, 2 ** 40), 0xffff_ffff);
  t.is(randomSeed(() => 1, 3, 9), 9, 'a random() that returns 1 still gives the max, not one past it');
  t.is(randomSeed(() => 0.5, 10, 20), 15);
});

test('parameters may be null (all defaults) but not another non-object', (t) => {
  const template = simple({ color: { key: 'color', type: 'integer', node_id: '1', input_name: 'color', default: 5 } });
  const rendered = renderWorkflow(template, null, half);
  t.true(rendered.ok);
  if (rendered.ok) t.is(rendered.value.workflow['1']!.inputs['color'], 5);
  t.deepEqual(fieldsOf(renderWorkflow(template, [1], half)), ['parameters']);
  t.deepEqual(fieldsOf(renderWorkflow(template, 'color=1', half)), ['parameters']);
});

// Pins: a parameter named like an Object.prototype member ("constructor") is not "supplied" by the prototype.
test('a parameter named like an Object member gets its default when not sent', (t) => {
  const map: ParameterMap = JSON.parse('{"constructor": {"key": "constructor", "type": "integer", "node_id": "1", "input_name": "color", "default": 7}}');
  const template = simple(map);
  const rendered = renderWorkflow(template, {}, half);
  t.true(rendered.ok, JSON.stringify(rendered));
  if (rendered.ok) t.deepEqual(rendered.value.usedParameters, { constructor: 7 });
});

test('unknown parameter names: listed up to 20 known names, "it takes none" when there are none, and capped', (t) => {
  t.deepEqual(messagesOf(renderWorkflow(simple({}), { color: 1 }, half)), ['is not a parameter of this template (it takes none)']);
  const many: ParameterMap = {};
  for (let i = 0; i < 22; i += 1) many[`p${String(i).padStart(2, '0')}`] = { key: `p${i}`, type: 'integer', node_id: '1', input_name: 'color', default: 0 };
  const [message] = messagesOf(renderWorkflow(simple(many), { nope: 1 }, half));
  const first20 = Object.keys(many).slice(0, 20).join(', ');
  t.is(message, `is not a parameter of this template (known: ${first20} and 2 more)`);
  const flood = Object.fromEntries(Array.from({ length: MAX_PROBLEMS + 10 }, (_, i) => [`x${i}`, 1]));
  t.is(fieldsOf(renderWorkflow(simple({}), flood, half)).length, MAX_PROBLEMS);
});

test('problems of mapped values are capped too, after the unknown names', (t) => {
  const required: ParameterMap = {};
  for (let i = 0; i < MAX_PROBLEMS + 5; i += 1) required[`r${i}`] = { key: `r${i}`, type: 'integer', node_id: '1', input_name: 'color', required: true };
  t.is(fieldsOf(renderWorkflow(simple(required), { unknown: 1 }, half)).length, MAX_PROBLEMS);
});

// Pins: the template is never changed through what a render returns: an unset parameter reports the template's own
// literal as a copy.
test("an unset parameter's literal is reported as a copy, not the template's object", (t) => {
  const workflow = graph();
  workflow['1']!.inputs['color'] = { __value__: [1, 2, 3] };
  const template = simple({ color: { key: 'color', type: 'string', node_id: '1', input_name: 'color' } }, workflow);
  const rendered = renderWorkflow(template, {}, half);
  if (!rendered.ok) return t.fail(JSON.stringify(rendered));
  t.deepEqual(rendered.value.usedParameters, { color: { __value__: [1, 2, 3] } });
  (rendered.value.usedParameters['color'] as { __value__: number[] }).__value__.push(4);
  t.deepEqual(template.workflow['1']!.inputs['color'], { __value__: [1, 2, 3] });
});

const mapped = simple({ color: { key: 'color', type: 'integer', node_id: '1', input_name: 'color', min: 0, max: 255 } });

test('conformance: a submitted graph that is no object, a node without inputs, a node id the template lacks', (t) => {
  t.deepEqual(fieldsOf(checkConformance(mapped, 'x' as unknown as WorkflowGraph, half)), ['workflow']);
  const noInputs = { ...graph(), '2': { class_type: 'SaveImage' } } as unknown as WorkflowGraph;
  t.deepEqual(messagesOf(checkConformance(mapped, noInputs, half)), ['must be an object with class_type and inputs']);
  const prototypeId = JSON.parse(`{"1": ${JSON.stringify(graph()['1'])}, "2": ${JSON.stringify(graph()['2'])}, "constructor": {"class_type": "SaveImage", "inputs": {}}}`) as WorkflowGraph;
  t.deepEqual(checkConformance(mapped, prototypeId, half), {
    ok: false,
    code: 'VALIDATION.FAILED',
    message: 'Validation failed',
    details: [{ field: 'workflow.constructor', message: 'is not in the template; only the values of mapped inputs may change' }],
  });
});

// Pins: a graph with structural problems (here the mapped node is missing) is refused with them, before any value
// is read from it.
test('conformance: structural problems are reported without reading mapped values', (t) => {
  const { '1': _gone, ...withoutMapped } = graph();
  t.deepEqual(fieldsOf(checkConformance(mapped, withoutMapped, half)), ['workflow.1']);
});

test('conformance: at most MAX_PROBLEMS problems', (t) => {
  const big: WorkflowGraph = {};
  for (let i = 0; i < MAX_PROBLEMS + 10; i += 1) big[String(i)] = { class_type: 'EmptyImage', inputs: { width: 1 } };
  t.is(fieldsOf(checkConformance(simple({}, big), {}, half)).length, MAX_PROBLEMS);
});

// Pins: a submitted object literal with a "__proto__" key (an own key once parsed) is not equal to the template's
// literal it replaces: the key is looked up as the other side's own key, not through its prototype.
// Pins that lists (not links) are compared item by item, also inside objects: a list input the template sets (a size,
// a list of strings) conforms when it is sent unchanged.
test('sameValue: lists are equal item by item, in order, at any depth', (t) => {
  t.true(sameValue([1, 'a', [2]], [1, 'a', [2]]));
  t.true(sameValue({ size: [512, 512] }, { size: [512, 512] }));
  t.false(sameValue([1, 2], [2, 1]));
  t.false(sameValue([1, 2], [1, 2, 3]));
  t.false(sameValue([1, 2], { 0: 1, 1: 2 }));
});

test('sameValue: a parsed __proto__ key is compared as an own key', (t) => {
  const submitted: unknown = JSON.parse('{"__proto__": {}}');
  t.false(sameValue(submitted, { y: 5 }));
  t.false(sameValue({ y: 5 }, submitted));
  t.true(sameValue(JSON.parse('{"__proto__": {}}'), submitted));
  const template = simple({}, { ...graph(), '1': { class_type: 'EmptyImage', inputs: { width: 16, height: 8, batch_size: 1, color: { y: 5 } } } });
  const sent = JSON.parse(JSON.stringify(template.workflow).replace('{"y":5}', '{"__proto__":{}}')) as WorkflowGraph;
  t.deepEqual(fieldsOf(checkConformance(template, sent, half)), ['workflow.1.inputs.color']);
});
