import { isPlainObject } from '../../domain/workflow-graph.ts';
import { validationFailed, type Fail } from '../../domain/result.ts';
import type { NodeCatalog } from '../../ports/node-catalog.port.ts';

/**
 * A template's workflow against the engine's node catalogue (ComfyUI's `/object_info`): every class_type the
 * engine does not know is a problem naming the node. No catalogue, or one that cannot tell now (no server
 * reachable), checks nothing: the engine still rejects the prompt when it runs.
 */
export const unknownNodeTypes = async (catalog: NodeCatalog | undefined, workflow: unknown): Promise<Fail<'VALIDATION.FAILED'> | null> => {
  if (!catalog || !isPlainObject(workflow)) return null;
  const known = await catalog.knownNodeTypes();
  if (!known) return null;
  const problems = Object.entries(workflow).flatMap(([id, node]) => {
    const classType = isPlainObject(node) ? node['class_type'] : undefined;
    if (typeof classType !== 'string' || classType.trim() === '' || known.has(classType)) return [];
    return [{ field: `workflow.${id}.class_type`, message: `node type ${classType} does not exist on the engine's servers` }];
  });
  return problems.length > 0 ? validationFailed(problems) : null;
};
