/**
 * ComfyUI's ProgressRegistry as seen from the WebSocket: every node start, update and finish
 * sends a `progress_state` snapshot of all non-pending nodes, in order of first touch.
 */
interface NodeProgress {
  value: number;
  max: number;
  state: 'running' | 'finished';
}

export class ProgressTracker {
  private readonly nodes = new Map<string, NodeProgress>();
  private running: string | null = null;

  constructor(
    private readonly promptId: string,
    private readonly publish: (data: Record<string, unknown>) => void,
  ) {}

  runningNode(): string | null {
    return this.running;
  }

  start(nodeId: string): void {
    this.nodes.set(nodeId, { value: 0, max: 1, state: 'running' });
    this.running = nodeId;
    this.send();
  }

  update(nodeId: string, value: number, max: number): void {
    this.nodes.set(nodeId, { value, max, state: 'running' });
    this.send();
  }

  finish(nodeId: string): void {
    const entry = this.nodes.get(nodeId) ?? { value: 0, max: 1, state: 'running' };
    this.nodes.set(nodeId, { value: entry.max, max: entry.max, state: 'finished' });
    if (this.running === nodeId) this.running = null;
    this.send();
  }

  /** A node without UI output reports no end of its own; it has finished once the next one starts. */
  finishRunning(): void {
    if (this.running !== null) this.finish(this.running);
  }

  private send(): void {
    const nodes: Record<string, unknown> = {};
    for (const [nodeId, p] of this.nodes) {
      nodes[nodeId] = {
        value: p.value,
        max: p.max,
        state: p.state,
        node_id: nodeId,
        prompt_id: this.promptId,
        display_node_id: nodeId,
        parent_node_id: null,
        real_node_id: nodeId,
      };
    }
    this.publish({ prompt_id: this.promptId, nodes });
  }
}
