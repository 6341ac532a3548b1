import test from 'ava';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { BuiltinRuntime } from '../../adapters/builtin-engine/builtin-runtime.ts';
import { probeMedia } from '../../adapters/builtin-engine/ffmpeg.ts';
import { validateParameterMap, type ParameterMap } from '../../core/domain/parameter-map.ts';
import { REQUIRED_BY_CATEGORY } from '../../core/domain/parameter-presets.ts';
import { READY_TEMPLATES, type ReadyTemplate } from '../../core/domain/ready-templates.ts';
import { renderWorkflow } from '../../core/domain/render-workflow.ts';
import { validateWorkflowGraph } from '../../core/domain/workflow-graph.ts';
import type { WorkflowGraph } from '../../core/domain/workflow-graph.types.ts';

/** The "Model-free core nodes" table of comfyui-protocol.md: nothing else may appear in a ready template. */
const MODEL_FREE_NODES = new Set([
  'EmptyImage', 'ImageInvert', 'ImageScale', 'ImageScaleBy', 'ImageBatch', 'ImageBlur', 'ImageSharpen', 'ImageBlend', 'ImageCrop',
  'ImageFlip', 'ImageRotate', 'RepeatImageBatch', 'ImageFromBatch', 'SolidMask', 'MaskToImage', 'ImageToMask', 'JoinImageWithAlpha',
  'GetImageSize', 'PreviewAny', 'PrimitiveInt', 'PrimitiveString', 'StringConcatenate', 'SaveImage', 'PreviewImage', 'LoadImage',
  'SaveAnimatedWEBP', 'SaveAnimatedPNG', 'CreateVideo', 'SaveVideo', 'SaveWEBM', 'EmptyAudio', 'SaveAudio', 'PreviewAudio',
]);

const IMAGE_ID = '6f1c1f55-2d4c-4c4e-9a39-0a7f3e0f2b11';

const byName = (name: string): ReadyTemplate => {
  const found = READY_TEMPLATES.find((template) => template.name === name);
  if (!found) throw new Error(`no ready template named ${name}`);
  return found;
};

const prepared = (template: ReadyTemplate): { workflow: WorkflowGraph; parameterMap: ParameterMap } => {
  const graph = validateWorkflowGraph(template.workflow);
  if (!graph.ok) throw new Error(`${template.name}: ${JSON.stringify(graph.details)}`);
  const map = validateParameterMap(template.parameterMap, graph.value, template.category);
  if (!map.ok) throw new Error(`${template.name}: ${JSON.stringify(map.details)}`);
  return { workflow: graph.value, parameterMap: map.value };
};

/** A builtin runtime with the checkout's example.png in its input folder, as a worker would have uploaded it. */
const runtime = async (): Promise<{ rt: BuiltinRuntime; outputDir: string }> => {
  const root = mkdtempSync(path.join(tmpdir(), 'ready-templates-'));
  const dirs = { inputDir: path.join(root, 'in'), outputDir: path.join(root, 'out'), tempDir: path.join(root, 'tmp') };
  const rt = new BuiltinRuntime(dirs);
  await sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 200, g: 10, b: 10 } } }).png().toFile(path.join(dirs.inputDir, 'example.png'));
  return { rt, outputDir: dirs.outputDir };
};

/** Renders with the given parameters; an image parameter's upload id becomes the file the worker would upload. */
const render = (template: ReadyTemplate, parameters: Record<string, unknown>): WorkflowGraph => {
  const rendered = renderWorkflow(prepared(template), parameters, () => 0.5);
  if (!rendered.ok) throw new Error(`${template.name}: ${JSON.stringify(rendered.details)}`);
  for (const ref of rendered.value.imageRefs) rendered.value.workflow[ref.nodeId]!.inputs[ref.inputName] = 'example.png';
  return rendered.value.workflow;
};

const requiredParameters = (template: ReadyTemplate): Record<string, unknown> =>
  Object.fromEntries(REQUIRED_BY_CATEGORY[template.category].map((key) => [key, key === 'image' ? IMAGE_ID : key === 'prompt' ? 'a red fox' : 2]));

test('there is an image, a video and an image-input template, each with a sensible cost', (t) => {
  t.true(READY_TEMPLATES.length >= 3);
  t.true(READY_TEMPLATES.some((x) => x.outputType === 'image' && x.category === 'text-to-image'));
  t.true(READY_TEMPLATES.some((x) => x.outputType === 'video' && x.category === 'text-to-video'));
  t.true(READY_TEMPLATES.some((x) => x.category === 'upscale' || x.category === 'image-to-image'));
  t.is(new Set(READY_TEMPLATES.map((x) => x.name.toLowerCase())).size, READY_TEMPLATES.length);
  for (const template of READY_TEMPLATES) t.true(template.cost >= 1 && template.cost <= 5, template.name);
});

for (const template of READY_TEMPLATES) {
  test(`${template.name}: model-free nodes only, valid graph and map, every category parameter mapped`, (t) => {
    for (const node of Object.values(template.workflow)) t.true(MODEL_FREE_NODES.has(node.class_type), node.class_type);
    const { parameterMap } = prepared(template);
    for (const key of REQUIRED_BY_CATEGORY[template.category]) t.truthy(parameterMap[key], `${key} is mapped`);
    t.true(renderWorkflow(prepared(template), requiredParameters(template), () => 0.5).ok);
  });

  test(`${template.name}: the builtin engine accepts the rendered graph (every required input present)`, async (t) => {
    const { rt } = await runtime();
    const workflow = render(template, requiredParameters(template));
    const result = rt.validate(workflow);
    // ComfyUI drops an invalid output branch and runs the rest, so "ok" alone would hide a broken node.
    if (!result.ok) return t.fail(JSON.stringify(result));
    t.deepEqual(result.nodeErrors, {});
    const outputs = Object.keys(workflow).filter((id) => /^(Save|Preview)/.test(workflow[id]!.class_type));
    t.deepEqual([...result.outputs].sort(), outputs.sort());
  });
}

test('Solid colour image: size, count and colour come from the parameters, the prompt comes back as text', async (t) => {
  const { rt, outputDir } = await runtime();
  const workflow = render(byName('Solid colour image'), { prompt: 'a red fox', width: 96, height: 64, batch_size: 2, color: 0xff0000 });
  const result = await rt.execute('p1', workflow);
  if (result.status !== 'success') return t.fail(JSON.stringify(result));
  const saved = Object.values(result.outputs).flatMap((ui) => (ui['images'] as { filename: string; subfolder: string }[] | undefined) ?? []);
  t.is(saved.length, 2);
  const { data, info } = await sharp(path.join(outputDir, saved[0]!.subfolder, saved[0]!.filename)).raw().toBuffer({ resolveWithObject: true });
  t.deepEqual([info.width, info.height, data[0], data[1], data[2]], [96, 64, 255, 0, 0]);
  const texts = Object.values(result.outputs).flatMap((ui) => (ui['text'] as string[] | undefined) ?? []);
  t.deepEqual(texts, ['a red fox']);
});

test('Solid colour video: an mp4 that lasts `duration` seconds', async (t) => {
  const { rt, outputDir } = await runtime();
  const result = await rt.execute('p2', render(byName('Solid colour video'), { prompt: 'waves', duration: 3 }));
  if (result.status !== 'success') return t.fail(JSON.stringify(result));
  const saved = Object.values(result.outputs).flatMap((ui) => (ui['images'] as { filename: string; subfolder: string }[] | undefined) ?? []);
  t.is(saved.length, 1);
  t.regex(saved[0]!.filename, /\.mp4$/);
  const file = path.join(outputDir, saved[0]!.subfolder, saved[0]!.filename);
  t.true(statSync(file).size > 0);
  const probe = await probeMedia(undefined, file);
  t.is(Math.round(probe.durationSeconds ?? 0), 3);
  t.deepEqual([probe.width, probe.height], [512, 288]);
});

test('Resize image: the input image scaled by the factor', async (t) => {
  const { rt, outputDir } = await runtime();
  const result = await rt.execute('p3', render(byName('Resize image'), { image: IMAGE_ID, scale_by: 1.5, upscale_method: 'bilinear' }));
  if (result.status !== 'success') return t.fail(JSON.stringify(result));
  const saved = Object.values(result.outputs).flatMap((ui) => (ui['images'] as { filename: string; subfolder: string }[] | undefined) ?? []);
  const meta = await sharp(path.join(outputDir, saved[0]!.subfolder, saved[0]!.filename)).metadata();
  t.deepEqual([meta.width, meta.height], [60, 45]);
});
