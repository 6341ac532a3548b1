import { context, propagation, ROOT_CONTEXT, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import type { TraceCarrier } from '../../core/ports/queue.port.ts';

/** The tracer every decorator of this adapter uses: a no-op until a tracer provider is registered. */
export const tracer = (): Tracer => trace.getTracer('media-gen');

/** The W3C trace context of `from` as a message carrier; undefined when it holds no valid span. */
export function carrierOf(from: Context = context.active()): TraceCarrier | undefined {
  const carrier: TraceCarrier = {};
  propagation.inject(from, carrier);
  return carrier['traceparent'] ? carrier : undefined;
}

/** The context a carrier continues; the root context (a new trace) when there is none. */
export const contextOf = (carrier: TraceCarrier | undefined): Context => (carrier ? propagation.extract(ROOT_CONTEXT, carrier) : ROOT_CONTEXT);

/** Runs `work` in a span that ends with it, marked as an error when it throws. */
export async function inSpan<T>(span: Span, parent: Context, work: () => Promise<T>): Promise<T> {
  try {
    return await context.with(trace.setSpan(parent, span), work);
  } catch (error) {
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    throw error;
  } finally {
    span.end();
  }
}
