import { REQUIRED_BY_CATEGORY } from './parameter-presets.ts';
import type { Category } from './parameter-presets.ts';
import type { WorkflowGraph } from './workflow-graph.types.ts';

/**
 * A category promises its users a prompt, an image or a duration only where the workflow has an input that can
 * carry one (issue 24): a blur workflow has no text input, so demanding a prompt made admins map "prompt" onto a
 * file-name prefix. Each rule names the literal inputs that can honestly take the value.
 */
const CARRIERS: Readonly<Record<string, (classType: string, inputName: string, value: unknown) => boolean>> = {
  prompt: (classType, inputName, value) =>
    typeof value === 'string' &&
    (inputName === 'text' || inputName === 'prompt' || (classType.startsWith('PrimitiveString') && inputName === 'value')),
  image: (classType, inputName, value) => typeof value === 'string' && classType.startsWith('LoadImage') && inputName === 'image',
  duration: (classType, inputName, value) =>
    typeof value === 'number' &&
    (['length', 'duration', 'seconds', 'frames', 'num_frames', 'video_frames'].includes(inputName) ||
      (classType === 'RepeatImageBatch' && inputName === 'amount')),
};

const workflowCarries = (workflow: WorkflowGraph, key: string): boolean => {
  const carries = CARRIERS[key];
  if (!carries) return true;
  return Object.values(workflow).some((node) =>
    // A link is an array, never a string or number, so only literal inputs qualify.
    Object.entries(node.inputs).some(([inputName, value]) => carries(node.class_type, inputName, value)),
  );
};

/** The keys a map must have for this category and this workflow: the category's list, less what the graph cannot take. */
export const requiredKeysFor = (category: Category, workflow: WorkflowGraph): string[] =>
  REQUIRED_BY_CATEGORY[category].filter((key) => workflowCarries(workflow, key));
