import { SpanKind } from '@opentelemetry/api';
import type { ConsumeOptions, Consumer, DeliveredMessage, HandlerOutcome, MessageQueue, OutgoingMessage, PeekedMessage, QueueStats } from '../../core/ports/queue.port.ts';
import { carrierOf, contextOf, inSpan, tracer } from './trace-context.ts';

/**
 * A MessageQueue whose publishes and deliveries are spans of the job's trace (ADR 031). A publish is a producer
 * span, child of the trace context the message already carries (the request's, stamped when the outbox row was
 * written), or the root of a new trace when it carries none; the message leaves with the producer span's context. A delivery is
 * handled inside a consumer span, child of the context the message arrived with.
 */
export class TracedMessageQueue implements MessageQueue {
  constructor(
    private readonly inner: MessageQueue,
    /** messaging.system: rabbitmq, aws_sqs, or the database queue's name. */
    private readonly system: string,
  ) {}

  publish(message: OutgoingMessage): Promise<{ messageId: string }> {
    // Only the message's own context: the relay publishes in whatever context woke it (another request's commit).
    const parent = contextOf(message.trace);
    const span = tracer().startSpan(
      `publish ${message.taskType}`,
      { kind: SpanKind.PRODUCER, attributes: { 'messaging.system': this.system, 'messaging.operation.type': 'send', 'messaging.destination.name': message.taskType, ...(message.messageId ? { 'messaging.message.id': message.messageId } : {}) } },
      parent,
    );
    return inSpan(span, parent, async () => {
      const trace = carrierOf() ?? message.trace;
      const sent = await this.inner.publish({ ...message, ...(trace ? { trace } : {}) });
      span.setAttribute('messaging.message.id', sent.messageId);
      return sent;
    });
  }

  consume(options: ConsumeOptions, handler: (message: DeliveredMessage) => Promise<HandlerOutcome>): Promise<Consumer> {
    return this.inner.consume(options, (message) => {
      const producer = contextOf(message.trace);
      const span = tracer().startSpan(
        `process ${message.taskType}`,
        {
          kind: SpanKind.CONSUMER,
          attributes: { 'messaging.system': this.system, 'messaging.operation.type': 'process', 'messaging.destination.name': message.taskType, 'messaging.message.id': message.id, 'messaging.delivery.attempt': message.attempt },
        },
        producer,
      );
      return inSpan(span, producer, async () => {
        const outcome = await handler(message);
        span.setAttribute('messaging.outcome', outcome.action);
        return outcome;
      });
    });
  }

  peek(max: number): Promise<PeekedMessage[]> {
    return this.inner.peek(max);
  }

  deadLetters(max: number): Promise<PeekedMessage[]> {
    return this.inner.deadLetters(max);
  }

  redrive(id: string): Promise<boolean> {
    return this.inner.redrive(id);
  }

  discard(id: string): Promise<boolean> {
    return this.inner.discard(id);
  }

  stats(environment: string, taskTypes: readonly string[]): Promise<QueueStats[]> {
    return this.inner.stats(environment, taskTypes);
  }

  check(): Promise<void> {
    return this.inner.check();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
