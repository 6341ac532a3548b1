import test from 'ava';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BuiltinRuntime } from '../../adapters/builtin-engine/builtin-runtime.ts';
import type { ValidateResult } from '../../adapters/builtin-engine/builtin-runtime.ts';
import type { InputTypes, NodeDef } from '../../adapters/builtin-engine/types.ts';
import { validateNodeInput } from '../../adapters/builtin-engine/validate.ts';

// POST /prompt validation guards, each checked against what ComfyUI's execution.py answers for the same prompt.

const makeRuntime = (extraNodes: NodeDef[] = []): BuiltinRuntime => {
  const root = mkdtempSync(path.join(tmpdir(), 'builtin-validate-'));
  return new BuiltinRuntime({ inputDir: path.join(root, 'in'), outputDir: path.join(root, 'out'), tempDir: path.join(root, 'tmp'), extraNodes });
};

/** A custom node, as a ComfyUI server with custom nodes installed would have. */
const customNode = (name: string, inputTypes: InputTypes, extra: Partial<NodeDef> = {}): NodeDef => ({
  name,
  displayName: name,
  description: '',
  category: 'testing',
  pythonModule: 'custom_nodes.testing',
  outputNode: true,
  inputTypes: () => inputTypes,
  output: [],
  run: async () => ({}),
  ...extra,
});

const empty = (over: Record<string, unknown> = {}) => ({ class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0, ...over } });
const save = (images: unknown) => ({ class_type: 'SaveImage', inputs: { images, filename_prefix: 'x' } });

const failed = (r: ValidateResult): Extract<ValidateResult, { ok: false }> => {
  if (r.ok) throw new Error(`expected a validation failure, got ${JSON.stringify(r)}`);
  return r;
};

/** The one error of node `id`: its type, message and details. */
const errorOf = (r: ValidateResult, id: string) => {
  const errors = r.ok ? r.nodeErrors[id]?.errors : r.node_errors[id]?.errors;
  if (errors?.length !== 1) throw new Error(`expected one error on node ${id}, got ${JSON.stringify(errors)}`);
  const [{ type, message, details, extra_info }] = errors as [(typeof errors)[number]];
  return { type, message, details, exceptionType: extra_info['exception_type'] };
};

// Pins: JSON object keys are strings, so ComfyUI's prompt[o_id] fails for a link whose id is a number, a list or a
// dict; a client must get the same KeyError/TypeError, not a prompt that runs on its (stand-in) server only.
test('a link whose node id is not a string fails as prompt[id] does in Python', (t) => {
  const rt = makeRuntime();
  const cases: [unknown, string, string][] = [
    [1, 'KeyError', '1'],
    [null, 'KeyError', 'None'],
    [[1], 'TypeError', "unhashable type: 'list'"],
    [{ id: '1' }, 'TypeError', "unhashable type: 'dict'"],
  ];
  for (const [id, exceptionType, details] of cases) {
    const r = failed(rt.validate({ '1': empty(), '2': save([id, 0]) }));
    t.deepEqual(errorOf(r, '2'), { type: 'exception_during_validation', message: 'Exception when validating node', details, exceptionType }, JSON.stringify(id));
  }
});

// Pins: ComfyUI reads the slot as RETURN_TYPES[slot], a Python tuple index: False is 0, True is 1, negatives count
// from the end, anything else is a TypeError naming its type.
test('a link slot is a Python tuple index', (t) => {
  const rt = makeRuntime();
  t.true(rt.validate({ '1': empty(), '2': save(['1', false]) }).ok, 'False is slot 0');
  t.true(rt.validate({ '1': empty(), '2': save(['1', -1]) }).ok, '-1 is the last slot');
  const outOfRange = { type: 'exception_during_validation', message: 'Exception when validating node', details: 'tuple index out of range', exceptionType: 'IndexError' };
  t.deepEqual(errorOf(failed(rt.validate({ '1': empty(), '2': save(['1', true]) })), '2'), outOfRange, 'True is slot 1');
  t.deepEqual(errorOf(failed(rt.validate({ '1': empty(), '2': save(['1', -2]) })), '2'), outOfRange, '-2 is before the first slot');
  const cases: [unknown, string][] = [
    ['0', 'str'],
    [0.5, 'float'],
    [null, 'NoneType'],
    [[0], 'list'],
    [{}, 'dict'],
  ];
  for (const [slot, name] of cases) {
    t.deepEqual(
      errorOf(failed(rt.validate({ '1': empty(), '2': save(['1', slot]) })), '2'),
      { type: 'exception_during_validation', message: 'Exception when validating node', details: `tuple indices must be integers or slices, not ${name}`, exceptionType: 'TypeError' },
      JSON.stringify(slot),
    );
  }
});

// Pins: comfy_execution/validation.py validate_node_input: equal types, "*" on either side, or one shared type of a
// comma-separated union connect; other pairs (and non-string types that differ) do not.
test('validateNodeInput connects the types ComfyUI connects', (t) => {
  t.true(validateNodeInput('IMAGE', 'IMAGE'));
  t.false(validateNodeInput('MASK', 'IMAGE'));
  t.true(validateNodeInput('*', 'IMAGE'));
  t.true(validateNodeInput('IMAGE', '*'));
  t.true(validateNodeInput('IMAGE,MASK', 'MASK'));
  t.true(validateNodeInput('INT', 'FLOAT, INT'));
  t.false(validateNodeInput('INT,STRING', 'FLOAT,BOOLEAN'));
  t.true(validateNodeInput(['a', 'b'], ['a', 'b']), 'equal lists compare equal in Python');
  t.false(validateNodeInput(['a', 'b'], ['a', 'c']));
  t.false(validateNodeInput('IMAGE', ['IMAGE']));
  t.false(validateNodeInput(['IMAGE'], 'IMAGE'));
});

// Pins: like ComfyUI, FLOAT and BOOLEAN literals are converted in place (float(), bool()), so the node gets a number
// and a bool, and the range check compares numbers.
test('FLOAT and BOOLEAN literals are converted in place as float() and bool() do', (t) => {
  const rt = makeRuntime();
  const prompt = {
    '1': empty(),
    '2': { class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: 1, sigma: '0.5' } },
    '3': { class_type: 'SaveAnimatedWEBP', inputs: { images: ['2', 0], filename_prefix: 'a', fps: '6', lossless: 'false', quality: 80, method: 'default' } },
    '4': { class_type: 'SaveAnimatedWEBP', inputs: { images: ['2', 0], filename_prefix: 'b', fps: 6, lossless: 0, quality: 80, method: 'default' } },
  };
  t.true(rt.validate(prompt).ok);
  t.is(prompt['2'].inputs.sigma as unknown, 0.5);
  t.is(prompt['3'].inputs.fps as unknown, 6);
  t.is(prompt['3'].inputs.lossless as unknown, true, 'bool("false") is True');
  t.is(prompt['4'].inputs.lossless as unknown, false);
  const small = failed(rt.validate({ '1': empty(), '2': { class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: 1, sigma: '0.01' } }, '3': save(['2', 0]) }));
  t.is(errorOf(small, '2').message, 'Value 0.01 smaller than min of 0.1');
});

// Pins: an optional input may be left out (CreateVideo without audio is valid); only required ones are reported.
test('a missing optional input is not an error', (t) => {
  const r = makeRuntime().validate({
    '1': empty(),
    '2': { class_type: 'CreateVideo', inputs: { images: ['1', 0], fps: 10 } },
    '3': { class_type: 'SaveVideo', inputs: { video: ['2', 0], filename_prefix: 'v', format: 'auto', codec: 'auto' } },
  });
  t.true(r.ok, JSON.stringify(r));
});

// Pins: ComfyUI validates a node once per prompt (its `validated` dict): a bad node linked from several inputs or
// outputs gets its errors once, and lists every output that depends on it.
test('an invalid node linked several times is reported once, with every output depending on it', (t) => {
  const r = failed(
    makeRuntime().validate({
      '1': empty({ width: 0 }),
      '2': { class_type: 'ImageBlend', inputs: { image1: ['1', 0], image2: ['1', 0], blend_factor: 0.5, blend_mode: 'normal' } },
      '3': save(['2', 0]),
      '4': save(['1', 0]),
    }),
  );
  t.deepEqual(Object.keys(r.node_errors), ['1']);
  t.deepEqual(r.node_errors['1']!.errors.map((e) => e.type), ['value_smaller_than_min']);
  t.deepEqual(r.node_errors['1']!.dependent_outputs, ['3', '4']);
  t.is(r.error.details, '', 'the outputs themselves have no errors of their own');
});

// Pins: prompt[id]['inputs'] raises KeyError in ComfyUI when a node has no "inputs": the output is refused, not run.
test('a node without inputs fails with KeyError \'inputs\'', (t) => {
  const r = failed(makeRuntime().validate({ '1': empty(), '2': { class_type: 'SaveImage' } }));
  t.deepEqual(errorOf(r, '2'), { type: 'exception_during_validation', message: 'Exception when validating node', details: "'inputs'", exceptionType: 'KeyError' });
  const inner = failed(makeRuntime().validate({ '1': { class_type: 'ImageInvert' }, '2': save(['1', 0]) }));
  t.deepEqual(errorOf(inner, '1'), { type: 'exception_during_inner_validation', message: 'Exception when validating inner node', details: "'inputs'", exceptionType: 'KeyError' });
});

// Pins: a node's VALIDATE_INPUTS is called with the inputs it names; one left out of the prompt is Python's TypeError
// for a missing argument (worded as Python words it), which fails the node instead of calling the check.
test('VALIDATE_INPUTS with missing arguments fails with Python\'s TypeError', (t) => {
  const loadImage = failed(makeRuntime().validate({ '1': { class_type: 'LoadImage', inputs: {} }, '2': save(['1', 0]) }));
  t.deepEqual(errorOf(loadImage, '1'), {
    type: 'exception_during_inner_validation',
    message: 'Exception when validating inner node',
    details: "LoadImage.VALIDATE_INPUTS() missing 1 required positional argument: 'image'",
    exceptionType: 'TypeError',
  });
  const three = customNode('ThreeArgs', { required: { a: ['STRING'], b: ['STRING'], c: ['STRING'] } }, { validateInputs: { inputs: ['a', 'b', 'c'], check: () => true } });
  const two = customNode('TwoArgs', { required: { a: ['STRING'] }, optional: { b: ['STRING'], c: ['STRING'] } }, { validateInputs: { inputs: ['a', 'b', 'c'], check: () => true } });
  const rt = makeRuntime([three, two]);
  t.is(errorOf(failed(rt.validate({ '1': { class_type: 'ThreeArgs', inputs: {} } })), '1').details, "ThreeArgs.VALIDATE_INPUTS() missing 3 required positional arguments: 'a', 'b', and 'c'");
  t.is(errorOf(failed(rt.validate({ '1': { class_type: 'TwoArgs', inputs: { a: 'x' } } })), '1').details, "TwoArgs.VALIDATE_INPUTS() missing 2 required positional arguments: 'b' and 'c'");
  t.true(rt.validate({ '1': { class_type: 'TwoArgs', inputs: { a: 'x', b: 'y', c: 'z' } } }).ok);
});

// Pins: ComfyUI calls VALIDATE_INPUTS before anything ran, so a linked input reaches it as None; a check answering
// False names only the input, a text answer is appended; one error per input the check takes.
test('VALIDATE_INPUTS gets None for a linked input and its answer becomes custom_validation_failed', (t) => {
  const seen: unknown[] = [];
  const checked = customNode(
    'Checked',
    { required: { text: ['STRING'], flag: ['STRING'] } },
    {
      validateInputs: {
        inputs: ['text', 'flag'],
        check: (v) => {
          seen.push(v['text']);
          return v['flag'] === 'ok' ? true : v['flag'] === 'no' ? false : `bad flag ${String(v['flag'])}`;
        },
      },
    },
  );
  const rt = makeRuntime([checked]);
  const linked = { class_type: 'PrimitiveString', inputs: { value: 'hello' } };
  t.true(rt.validate({ '1': linked, '2': { class_type: 'Checked', inputs: { text: ['1', 0], flag: 'ok' } } }).ok);
  t.deepEqual(seen, [null]);
  const no = failed(rt.validate({ '1': linked, '2': { class_type: 'Checked', inputs: { text: ['1', 0], flag: 'no' } } }));
  t.deepEqual(no.node_errors['2']!.errors.map((e) => e.details), ['text', 'flag']);
  t.is(no.node_errors['2']!.errors[0]!.type, 'custom_validation_failed');
  const text = failed(rt.validate({ '1': linked, '2': { class_type: 'Checked', inputs: { text: ['1', 0], flag: 'maybe' } } }));
  t.deepEqual(text.node_errors['2']!.errors.map((e) => e.details), ['text - bad flag maybe', 'flag - bad flag maybe']);
});

// Pins: ComfyUI does not send back a gigantic option list (a server with hundreds of checkpoints): above 20 options
// the details give the list's length and input_config is null.
test('a value not in a list of more than 20 options gives the list\'s length only', (t) => {
  const options = Array.from({ length: 21 }, (_, i) => `model_${i}.safetensors`);
  const rt = makeRuntime([customNode('PickModel', { required: { name: [options] } }), customNode('PickFew', { required: { name: [options.slice(0, 20)] } })]);
  const r = failed(rt.validate({ '1': { class_type: 'PickModel', inputs: { name: 'nope' } } }));
  t.deepEqual(r.node_errors['1']!.errors, [
    { type: 'value_not_in_list', message: 'Value not in list', details: "name: 'nope' not in (list of length 21)", extra_info: { input_name: 'name', input_config: null, received_value: 'nope' } },
  ]);
  const few = failed(rt.validate({ '1': { class_type: 'PickFew', inputs: { name: 'nope' } } }));
  t.regex(few.node_errors['1']!.errors[0]!.details, /^name: 'nope' not in \['model_0\.safetensors', /);
  t.deepEqual(few.node_errors['1']!.errors[0]!.extra_info['input_config'], [options.slice(0, 20), {}]);
  t.true(rt.validate({ '1': { class_type: 'PickModel', inputs: { name: 'model_20.safetensors' } } }).ok);
});

// Pins: a prompt that is not an object, or a node that is not one, is refused with invalid_prompt (400) instead of
// crashing the server's validation.
test('a prompt or a node that is not an object is an invalid_prompt', (t) => {
  const rt = makeRuntime();
  for (const prompt of [[empty()], 'prompt', null, 5]) {
    const r = failed(rt.validate(prompt));
    t.deepEqual(r.error, { type: 'invalid_prompt', message: 'Cannot execute because the prompt is not an object.', details: '', extra_info: {} }, JSON.stringify(prompt));
  }
  for (const node of ['SaveImage', null, [1], 3]) {
    const r = failed(rt.validate({ '1': empty(), '2': node }));
    t.deepEqual(r.error, { type: 'invalid_prompt', message: 'Cannot execute because a node is missing the class_type property.', details: "Node ID '#2'", extra_info: {} }, JSON.stringify(node));
  }
  const number = failed(rt.validate({ '1': { class_type: 5, inputs: {} } }));
  t.is(number.error.message, 'Cannot execute because node 5 does not exist.');
});

// Pins: an output whose upstream node fails is itself invalid (not run), but ComfyUI lists only the nodes that have
// errors of their own.
test('an output failing only through its upstream node is dropped but not listed', (t) => {
  const r = makeRuntime().validate({
    '1': empty({ height: 0 }),
    '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
    '3': save(['2', 0]),
    '4': { class_type: 'PreviewImage', inputs: { images: ['5', 0] } },
    '5': empty(),
  });
  t.true(r.ok);
  if (!r.ok) return;
  t.deepEqual(r.outputs, ['4']);
  t.deepEqual(Object.keys(r.nodeErrors), ['1']);
  t.deepEqual(r.nodeErrors['1']!.dependent_outputs, ['3']);
});

// Pins: a VALIDATE_INPUTS that raises does not crash the server's validation: the output is refused with
// exception_during_validation carrying the error's message.
test('a VALIDATE_INPUTS that raises fails its node with the error\'s message', (t) => {
  const raising = customNode('Raising', { required: { a: ['STRING'] } }, {
    validateInputs: {
      inputs: ['a'],
      check: () => {
        throw new Error('boom');
      },
    },
  });
  const r = failed(makeRuntime([raising]).validate({ '1': { class_type: 'Raising', inputs: { a: 'x' } } }));
  t.deepEqual(errorOf(r, '1'), { type: 'exception_during_validation', message: 'Exception when validating node', details: 'boom', exceptionType: 'Exception' });
});
