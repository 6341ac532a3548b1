import type { RequestListener } from 'node:http';
import type { RunningTracing } from '../adapters/opentelemetry/otel-sdk.ts';
import { tracedFetch } from '../adapters/opentelemetry/traced-fetch.ts';
import { tracedRequestListener } from '../adapters/opentelemetry/traced-http-server.ts';
import { TracedMessageQueue } from '../adapters/opentelemetry/traced-message-queue.ts';
import { TracedObjectStorage } from '../adapters/opentelemetry/traced-object-storage.ts';
import { TracedUnitOfWork } from '../adapters/opentelemetry/traced-unit-of-work.ts';
import { TracedWorkflowEngine } from '../adapters/opentelemetry/traced-workflow-engine.ts';
import type { ObjectStorage } from '../core/ports/object-storage.port.ts';
import type { MessageQueue } from '../core/ports/queue.port.ts';
import type { UnitOfWork } from '../core/ports/unit-of-work.port.ts';
import type { WorkflowEngine } from '../core/ports/workflow-engine.port.ts';
import type { Config } from './config.ts';

/**
 * The tracing decorators of one generation's path (ADR 031), applied where the ports are handed to the use cases
 * of that path. With no OTLP endpoint configured each returns the port itself: no wrapper, no span, no cost.
 */
export interface Tracing {
  queue(queue: MessageQueue): MessageQueue;
  engine(engine: WorkflowEngine): WorkflowEngine;
  storage(storage: ObjectStorage): ObjectStorage;
  unitOfWork(uow: UnitOfWork): UnitOfWork;
  requestListener(listener: RequestListener): RequestListener;
  /** The fetch an adapter should call `system` (comfyui) with: a span per call; undefined (the global fetch) when off. */
  fetchFor(system: string): typeof fetch | undefined;
}

const QUEUE_SYSTEMS = { db: 'database', rabbitmq: 'rabbitmq', sqs: 'aws_sqs' } as const;

export function tracingOf(config: Readonly<Config>): Tracing {
  if (!config.telemetry.traces) {
    return { queue: (q) => q, engine: (e) => e, storage: (s) => s, unitOfWork: (u) => u, requestListener: (l) => l, fetchFor: () => undefined };
  }
  return {
    queue: (queue) => new TracedMessageQueue(queue, QUEUE_SYSTEMS[config.queue.driver]),
    engine: (engine) => new TracedWorkflowEngine(engine, config.engine.driver),
    storage: (storage) => new TracedObjectStorage(storage, config.storage.driver),
    unitOfWork: (uow) => new TracedUnitOfWork(uow),
    requestListener: tracedRequestListener,
    fetchFor: (system) => tracedFetch((input, init) => fetch(input, init), system),
  };
}

/**
 * Starts the SDK when an endpoint is configured; null (nothing started) otherwise. The SDK is loaded only then:
 * importing it (with its exporters) takes some 0.4 s that a process without a collector need not spend.
 */
export async function startTracingOf(config: Readonly<Config>): Promise<RunningTracing | null> {
  if (!config.telemetry.traces) return null;
  const { startTracing } = await import('../adapters/opentelemetry/otel-sdk.ts');
  return startTracing(config.telemetry.traces);
}
