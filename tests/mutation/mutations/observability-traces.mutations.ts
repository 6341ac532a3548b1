import type { Mutation } from '../mutation.ts';

/** Trace-context propagation (ADR 031): where the context is injected into a message and extracted from it. */
export const MUTATIONS: Mutation[] = [
  {
    name: 'traces: the consumer span ignores the context the message carries',
    file: 'adapters/opentelemetry/traced-message-queue.ts',
    find: 'const producer = contextOf(message.trace);',
    replace: 'const producer = contextOf(undefined);',
    tests: ['tests/integration/tracing.test.ts'],
  },
  {
    name: 'traces: the publish span ignores the context the outbox message carries',
    file: 'adapters/opentelemetry/traced-message-queue.ts',
    find: 'const parent = contextOf(message.trace);',
    replace: 'const parent = contextOf(undefined);',
    tests: ['tests/integration/tracing.test.ts'],
  },
  {
    name: 'traces: the publish span does not inject its own context',
    file: 'adapters/opentelemetry/traced-message-queue.ts',
    find: 'const trace = carrierOf() ?? message.trace;',
    replace: 'const trace = message.trace;',
    tests: ['tests/integration/tracing.test.ts'],
  },
  {
    name: "traces: the outbox message is not stamped with the request's context",
    file: 'adapters/opentelemetry/traced-unit-of-work.ts',
    find: 'const trace = entry.message.trace ?? carrierOf(caller);',
    replace: 'const trace = entry.message.trace;',
    tests: ['tests/integration/tracing.test.ts'],
  },
  {
    name: 'traces: the SDK and the decorators start without an endpoint',
    file: 'bootstrap/tracing.ts',
    find: '  if (!config.telemetry.traces) return null;',
    replace: '',
    // The decorators are off too without an endpoint: an SDK alone would have no span to send.
    also: [
      { file: 'bootstrap/tracing.ts', find: '  if (!config.telemetry.traces) {', replace: '  if (false) {' },
      { file: 'bootstrap/tracing.ts', find: 'return startTracing(config.telemetry.traces);', replace: "return startTracing(config.telemetry.traces ?? { url: 'http://localhost:4318/v1/traces', serviceName: 'media-gen-api' });" },
    ],
    tests: ['tests/integration/tracing.test.ts'],
  },
  {
    name: 'traces: RabbitMQ drops the trace context on a retry',
    file: 'adapters/rabbitmq/rabbit-message-queue.ts',
    find: '{ messageId, attempt, trace: traceCarrierOf(headersOf(message)) }, settlement.seconds);',
    replace: '{ messageId, attempt }, settlement.seconds);',
    tests: ['tests/contract/message-queue.test.ts'],
  },
  {
    name: 'traces: the database queue does not hand the trace context back',
    file: 'adapters/sequelize/sequelize-queue-consumer.ts',
    find: 'attempts, trace FROM queue_messages',
    replace: 'attempts, NULL AS trace FROM queue_messages',
    tests: ['tests/contract/message-queue.test.ts'],
  },
  {
    name: 'traces: ComfyUI calls bypass the traced fetch',
    file: 'adapters/comfyui/comfy-client.ts',
    find: 'const res = await (this.options.fetch ?? fetch)(',
    replace: 'const res = await fetch(',
    tests: ['tests/integration/tracing.test.ts'],
  },
];
