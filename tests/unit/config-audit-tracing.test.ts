import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import express from 'express';
import { startTracing } from '../../adapters/opentelemetry/otel-sdk.ts';
import { tracedRequestListener } from '../../adapters/opentelemetry/traced-http-server.ts';

/**
 * The server span of each HTTP request (ADR 031), through the real SDK to an OTLP/HTTP receiver here: named after the
 * route pattern, never the concrete path; an error only for a 5xx; ended even when the client goes away; continuing an
 * incoming `traceparent`. One SDK per process, so the tests of this file run one after the other.
 */

interface Span {
  traceId: string;
  parentSpanId?: string;
  name: string;
  status?: { code?: number };
  attributes: Record<string, unknown>;
}

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function traced(t: import('ava').ExecutionContext, requests: (base: string) => Promise<void>): Promise<Span[]> {
  const spans: Span[] = [];
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as {
        resourceSpans?: { scopeSpans?: { spans?: (Omit<Span, 'attributes'> & { attributes?: { key: string; value: { stringValue?: string; intValue?: string | number } }[] })[] }[] }[];
      };
      for (const resource of body.resourceSpans ?? []) {
        for (const scope of resource.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            spans.push({ ...span, attributes: Object.fromEntries((span.attributes ?? []).map((a) => [a.key, a.value.stringValue ?? Number(a.value.intValue)])) });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  const receiverUrl = await listen(receiver);
  t.teardown(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
  const tracing = startTracing({ url: `${receiverUrl}/v1/traces`, serviceName: 'audit' });

  const app = express();
  const api = express.Router();
  api.get('/items/:id', (req, res) => void res.json({ id: req.params.id }));
  api.get('/broken/:id', (_req, res) => void res.status(500).json({ statusCode: 500 }));
  api.get('/hang', () => undefined);
  app.use('/api/v1', api);
  const server = createServer(tracedRequestListener(app));
  const base = await listen(server);
  try {
    await requests(base);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await tracing.shutdown();
  }
  return spans;
}

test.serial('a routed request is named after its pattern, with the status; only a 5xx is an error', async (t) => {
  const spans = await traced(t, async (base) => {
    t.is((await fetch(`${base}/api/v1/items/42`)).status, 200);
    t.is((await fetch(`${base}/api/v1/nowhere/7`)).status, 404);
    t.is((await fetch(`${base}/api/v1/broken/9`)).status, 500);
  });
  t.is(spans.length, 3, JSON.stringify(spans));
  const item = spans.find((span) => span.attributes['http.response.status_code'] === 200)!;
  t.is(item.name, 'GET /api/v1/items/:id');
  t.like(item.attributes, { 'http.route': '/api/v1/items/:id', 'http.request.method': 'GET' });
  t.not(item.status?.code, 2);
  const missing = spans.find((span) => span.attributes['http.response.status_code'] === 404)!;
  t.is(missing.name, 'GET', 'an unrouted request keeps the bare method: no concrete path in the name');
  t.false('http.route' in missing.attributes);
  t.not(missing.status?.code, 2, 'a 404 is the client\'s error, not the server\'s');
  const broken = spans.find((span) => span.attributes['http.response.status_code'] === 500)!;
  t.is(broken.name, 'GET /api/v1/broken/:id');
  t.is(broken.status?.code, 2, 'a 500 marks the span as an error');
});

test.serial('a request continues the trace of its traceparent header', async (t) => {
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const parentId = '00f067aa0ba902b7';
  const spans = await traced(t, async (base) => {
    await fetch(`${base}/api/v1/items/1`, { headers: { traceparent: `00-${traceId}-${parentId}-01` } });
  });
  t.is(spans.length, 1);
  t.is(spans[0]!.traceId, traceId);
  t.is(spans[0]!.parentSpanId, parentId);
});

test.serial('a request the client abandons still ends its span', async (t) => {
  const spans = await traced(t, async (base) => {
    const controller = new AbortController();
    const pending = fetch(`${base}/api/v1/hang`, { signal: controller.signal }).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 100));
    controller.abort();
    await pending;
    await new Promise((resolve) => setTimeout(resolve, 100));
  });
  t.is(spans.length, 1, JSON.stringify(spans));
  t.is(spans[0]!.name, 'GET');
});
