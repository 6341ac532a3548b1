/** Where step 2 points a preset before the admin picks anything: a guess they can change. */
export type Workflow = Record<string, { class_type: string; inputs: Record<string, unknown>; _meta?: { title?: string } }>;
export interface Location {
  node_id: string;
  input_name: string;
}

const isLink = (value: unknown): value is [string, number] => Array.isArray(value) && value.length === 2 && typeof value[0] === 'string';

/**
 * The text node a sampler's `positive` or `negative` conditioning comes from, followed link by link through
 * conditioning nodes (ConditioningCombine, ControlNetApply…) until a node with a literal string `text` input.
 */
const textFeeding = (workflow: Workflow, side: 'positive' | 'negative'): Location | null => {
  for (const node of Object.values(workflow)) {
    let link = node.inputs[side];
    const seen = new Set<string>();
    while (isLink(link) && !seen.has(link[0])) {
      seen.add(link[0]);
      const source = workflow[link[0]];
      if (!source) break;
      if (typeof source.inputs['text'] === 'string') return { node_id: link[0], input_name: 'text' };
      link = source.inputs['conditioning'] ?? source.inputs['conditioning_1'] ?? source.inputs[side];
    }
  }
  return null;
};

/** A guess for a preset: the SD prompts by their links, anything else by an unlinked input of the same name. */
export const guessLocation = (workflow: Workflow, key: string): Location | null => {
  if (key === 'prompt' || key === 'negative_prompt') {
    const found = textFeeding(workflow, key === 'prompt' ? 'positive' : 'negative');
    if (found) return found;
  }
  for (const [id, node] of Object.entries(workflow)) {
    if (key in node.inputs && !isLink(node.inputs[key])) return { node_id: id, input_name: key };
  }
  return null;
};

/** True when the graph is a standard SD graph with a negative text: step 2 then offers negative_prompt at once. */
export const hasNegativeText = (workflow: Workflow): boolean => textFeeding(workflow, 'negative') !== null;
