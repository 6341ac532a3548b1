/** Primitive*, StringConcatenate, PreviewAny and GetImageSize. */
import type { ImageBatch, MaskBatch, NodeDef } from '../types.ts';
import { asImage } from '../image-ops.ts';
import { pyFloatRepr } from '../py-format.ts';

// sys.maxsize, as close as a double gets.
const MAXSIZE = 9223372036854775807;

const primitive = (name: string, displayName: string, type: string, options: Record<string, unknown>): NodeDef => ({
  name,
  displayName,
  description: '',
  category: 'utils/primitive',
  pythonModule: 'comfy_extras.nodes_primitive',
  outputNode: false,
  inputTypes: () => ({ required: { value: [type, options] } }),
  output: [type],
  run: async (i) => ({ outputs: [i['value']] }),
});

const ascii = (s: string): string => s.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** json.dumps with Python's default separators and ensure_ascii. */
const jsonDumps = (v: unknown): string => {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return ascii(JSON.stringify(v));
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
    return Number.isInteger(v) ? String(v) : pyFloatRepr(v); // a float as float.__repr__ prints it
  }
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(jsonDumps).join(', ')}]`;
  return `{${Object.entries(v as Record<string, unknown>)
    .map(([k, x]) => `${ascii(JSON.stringify(k))}: ${jsonDumps(x)}`)
    .join(', ')}}`;
};

/** What str() of one of our tensor-like values says (ComfyUI prints the tensor; we print its shape). */
const describe = (v: unknown): string | null => {
  const kind = (v as { kind?: string } | null)?.kind;
  if (kind === 'IMAGE') {
    const img = v as ImageBatch;
    const f = img.frames[0]!;
    return `tensor(shape=[${img.frames.length}, ${f.height}, ${f.width}, ${f.channels}])`;
  }
  if (kind === 'MASK') {
    const m = v as MaskBatch;
    return `tensor(shape=[${m.planes.length}, ${m.height}, ${m.width}])`;
  }
  if (kind === 'VIDEO') return '<comfy_api.latest._input_impl.video_types.VideoFromComponents object>';
  if (kind === 'AUDIO') return '<audio>';
  return null;
};

export const utilityNodes: NodeDef[] = [
  primitive('PrimitiveInt', 'Int', 'INT', { min: -MAXSIZE, max: MAXSIZE, control_after_generate: true }),
  primitive('PrimitiveFloat', 'Float', 'FLOAT', { min: -MAXSIZE, max: MAXSIZE }),
  primitive('PrimitiveString', 'String', 'STRING', {}),
  primitive('PrimitiveStringMultiline', 'String (Multiline)', 'STRING', { multiline: true }),
  primitive('PrimitiveBoolean', 'Boolean', 'BOOLEAN', {}),
  {
    name: 'StringConcatenate',
    displayName: 'Concatenate',
    description: '',
    category: 'utils/string',
    pythonModule: 'comfy_extras.nodes_string',
    outputNode: false,
    inputTypes: () => ({
      required: {
        string_a: ['STRING', { multiline: true }],
        string_b: ['STRING', { multiline: true }],
        delimiter: ['STRING', { multiline: false, default: '' }],
      },
    }),
    output: ['STRING'],
    run: async (i) => ({ outputs: [[i['string_a'], i['string_b']].map(String).join(String(i['delimiter']))] }),
  },
  {
    name: 'PreviewAny',
    displayName: 'Preview Any',
    description: '',
    category: 'utils',
    pythonModule: 'comfy_extras.nodes_preview_any',
    outputNode: true,
    inputTypes: () => ({ required: { source: ['*', {}] } }),
    output: [],
    async run(i, ctx) {
      const source = i['source'];
      let value = 'None';
      if (typeof source === 'string') value = source;
      else if (typeof source === 'boolean') value = source ? 'True' : 'False';
      else if (typeof source === 'number') {
        value = ctx.linkedTypes['source'] === 'FLOAT' || !Number.isInteger(source) ? pyFloatRepr(source) : String(source);
      } else if (source !== null && source !== undefined) value = describe(source) ?? jsonDumps(source);
      return { ui: { text: [value] } };
    },
  },
  {
    name: 'GetImageSize',
    displayName: 'Get Image Size',
    description: 'Returns width and height of the image, and passes it through unchanged.',
    category: 'image',
    pythonModule: 'comfy_extras.nodes_images',
    outputNode: false,
    inputTypes: () => ({ required: { image: ['IMAGE'] }, hidden: { unique_id: 'UNIQUE_ID' } }),
    output: ['INT', 'INT', 'INT'],
    outputName: ['width', 'height', 'batch_size'],
    async run(i) {
      const img = asImage(i['image']);
      const f = img.frames[0]!;
      return { outputs: [f.width, f.height, img.frames.length] };
    },
  },
];
