import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { inSpan, tracer } from './trace-context.ts';

/**
 * A fetch whose calls are client spans (`POST /prompt`, with the server and the status) when made inside a span,
 * such as the engine run of a job; calls made outside any span (background health probes) make none. The request
 * carries `traceparent`, so a server that reads it can continue the trace (ADR 031).
 */
/** The path with its ids (prompt ids, run ids) as `:id`, so span names stay few. */
const routeOf = (pathname: string): string =>
  pathname
    .split('/')
    .map((segment) => (/^[0-9a-f-]{16,}$/i.test(segment) ? ':id' : segment))
    .join('/');

export function tracedFetch(inner: typeof fetch, system: string): typeof fetch {
  return (input, init) => {
    const parent = context.active();
    if (!trace.getSpan(parent)) return inner(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    const span = tracer().startSpan(
      `${method} ${routeOf(url.pathname)}`,
      { kind: SpanKind.CLIENT, attributes: { 'peer.service': system, 'http.request.method': method, 'server.address': url.hostname, 'server.port': Number(url.port) || (url.protocol === 'https:' ? 443 : 80), 'url.path': url.pathname } },
      parent,
    );
    return inSpan(span, parent, async () => {
      const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
      propagation.inject(context.active(), headers, { set: (carrier, key, value) => carrier.set(key, value) });
      const response = await inner(input, { ...init, headers });
      span.setAttribute('http.response.status_code', response.status);
      if (response.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      return response;
    });
  };
}
