import { context, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { EngineHealth, EngineRunRequest, EngineRunResult, EngineSlot, SlotRequest, WorkflowEngine } from '../../core/ports/workflow-engine.port.ts';
import { inSpan, tracer } from './trace-context.ts';

/**
 * A WorkflowEngine whose runs are spans (child of the worker's consumer span): how long the engine took, and how it
 * ended. A job's wait for a slot (ADR 044), when the engine has one, is a span of its own before the run's.
 */
export class TracedWorkflowEngine implements WorkflowEngine {
  readonly reserve?: (request: SlotRequest) => Promise<EngineSlot | null>;

  constructor(
    private readonly inner: WorkflowEngine,
    /** builtin or comfyui. */
    private readonly driver: string,
  ) {
    if (inner.reserve) this.reserve = (request) => this.slot(inner.reserve!.bind(inner), request);
  }

  private slot(reserve: (request: SlotRequest) => Promise<EngineSlot | null>, request: SlotRequest): Promise<EngineSlot | null> {
    const parent = context.active();
    const span = tracer().startSpan(`engine slot ${this.driver}`, { kind: SpanKind.INTERNAL, attributes: { 'engine.driver': this.driver, 'job.id': request.jobId } }, parent);
    return inSpan(span, parent, async () => {
      const slot = await reserve(request);
      span.setAttribute('engine.slot', slot ? 'given' : 'none');
      return slot;
    });
  }

  run(request: EngineRunRequest): Promise<EngineRunResult> {
    const parent = context.active();
    const span = tracer().startSpan(
      `engine run ${this.driver}`,
      { kind: SpanKind.INTERNAL, attributes: { 'engine.driver': this.driver, 'engine.run_id': request.runId, 'job.id': request.jobId } },
      parent,
    );
    return inSpan(span, parent, async () => {
      const result = await this.inner.run(request);
      span.setAttribute('engine.outcome', result.ok ? 'succeeded' : result.transient ? 'failed_transient' : 'failed');
      if (!result.ok) span.setStatus({ code: SpanStatusCode.ERROR, message: result.error.code });
      return result;
    });
  }

  release(runId: string): Promise<void> {
    return this.inner.release ? this.inner.release(runId) : Promise.resolve();
  }

  check(): Promise<EngineHealth | void> {
    return this.inner.check();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
