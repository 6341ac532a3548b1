import type { GenerationJob } from '../../domain/job.ts';
import type { WorkflowGraph } from '../../domain/workflow-graph.types.ts';
import type { ObjectStorage } from '../../ports/object-storage.port.ts';
import type { EngineInputFile } from '../../ports/workflow-engine.port.ts';
import type { InputImages } from './input-images.service.ts';

const EXTENSIONS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' };

/** The files a job's workflow reads (its image parameters), and the workflow rewritten to name them. */
export class EngineInputs {
  constructor(private readonly deps: { images: InputImages; storage: ObjectStorage }) {}

  async load(job: GenerationJob): Promise<{ workflow: WorkflowGraph; files: EngineInputFile[] }> {
    const workflow: WorkflowGraph = { ...job.workflow };
    const files: EngineInputFile[] = [];
    for (const ref of job.imageRefs) {
      const image = await this.deps.images.find(job.userId, ref.id);
      if (!image) throw new Error(`input image ${ref.id} is gone`);
      const stored = await this.deps.storage.get(image.storageKey);
      if (!stored) throw new Error(`input image ${ref.id} is no longer stored`);
      const chunks: Buffer[] = [];
      for await (const chunk of stored.body) chunks.push(chunk as Buffer);
      const name = `${ref.id}.${EXTENSIONS[stored.contentType] ?? 'png'}`;
      files.push({ name, mimeType: stored.contentType, data: Buffer.concat(chunks) });
      const node = workflow[ref.nodeId]!;
      workflow[ref.nodeId] = { ...node, inputs: { ...node.inputs, [ref.inputName]: name } };
    }
    return { workflow, files };
  }
}
