import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { tracer } from './trace-context.ts';

/** What Express leaves on a request it routed: the mount path and the matched route's pattern. */
interface RoutedRequest extends IncomingMessage {
  baseUrl?: string;
  route?: { path?: unknown };
}

/**
 * Wraps the HTTP server's listener: one server span per request (continuing an incoming `traceparent`), active
 * while the app handles it, named after the route pattern the app matched (`POST /api/v1/generate`, never the
 * concrete path with its ids), with the response's status code (ADR 031).
 */
export function tracedRequestListener(listener: RequestListener): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const method = req.method ?? 'GET';
    const span = tracer().startSpan(method, { kind: SpanKind.SERVER, attributes: { 'http.request.method': method } }, parent);
    res.once('finish', () => {
      const routed = req as RoutedRequest;
      const pattern = typeof routed.route?.path === 'string' ? `${routed.baseUrl ?? ''}${routed.route.path}` : null;
      if (pattern) {
        span.updateName(`${method} ${pattern}`);
        span.setAttribute('http.route', pattern);
      }
      span.setAttribute('http.response.status_code', res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
    res.once('close', () => {
      if (!res.writableFinished) span.end();
    });
    context.with(trace.setSpan(parent, span), () => listener(req, res));
  };
}
