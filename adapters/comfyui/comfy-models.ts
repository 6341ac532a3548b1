/**
 * The model files a ComfyUI server offers, read from its `/object_info`: the choices of the loader inputs below.
 * Kept behind this one function so a fuller per-server catalogue can replace it.
 */
export const MODEL_INPUTS = ['ckpt_name', 'lora_name', 'vae_name', 'unet_name', 'clip_name', 'clip_name1', 'clip_name2', 'control_net_name', 'upscale_model_name', 'style_model_name', 'clip_vision_name'] as const;

/** A combo input is `[[choices...], options?]`, or in newer servers `['COMBO', { options: [choices...] }]`. */
function choicesOf(spec: unknown): string[] {
  if (!Array.isArray(spec)) return [];
  if (Array.isArray(spec[0])) return spec[0].filter((choice): choice is string => typeof choice === 'string');
  const options = (spec[1] as { options?: unknown } | undefined)?.options;
  return spec[0] === 'COMBO' && Array.isArray(options) ? options.filter((choice): choice is string => typeof choice === 'string') : [];
}

export function modelsFromObjectInfo(objectInfo: Record<string, unknown>): Record<string, string[]> {
  const found = new Map<string, Set<string>>();
  for (const node of Object.values(objectInfo)) {
    const input = (node as { input?: { required?: Record<string, unknown>; optional?: Record<string, unknown> } } | null)?.input;
    for (const group of [input?.required, input?.optional]) {
      for (const name of MODEL_INPUTS) {
        const choices = choicesOf(group?.[name]);
        if (choices.length === 0) continue;
        const set = found.get(name) ?? new Set<string>();
        for (const choice of choices) set.add(choice);
        found.set(name, set);
      }
    }
  }
  return Object.fromEntries([...found.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, set]) => [name, [...set].sort()]));
}
