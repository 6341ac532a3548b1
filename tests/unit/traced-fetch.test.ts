/**
 * The client spans of tracedFetch (ADR 031), read from an in-process span processor: no span outside a trace, span
 * names with ids folded, the server's address and port, error status only for 5xx, and the request's own headers
 * kept beside the injected traceparent.
 */
import test from 'ava';
import { context, propagation, SpanStatusCode, trace } from '@opentelemetry/api';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { tracedFetch } from '../../adapters/opentelemetry/traced-fetch.ts';
import { tracer } from '../../adapters/opentelemetry/trace-context.ts';

interface Ended {
  name: string;
  traceId: string;
  attributes: Record<string, unknown>;
  status: number;
}

const ended: Ended[] = [];
const collector = {
  onStart() {},
  onEnd(span: { name: string; spanContext(): { traceId: string }; attributes: Record<string, unknown>; status: { code: number } }) {
    ended.push({ name: span.name, traceId: span.spanContext().traceId, attributes: { ...span.attributes }, status: span.status.code });
  },
  forceFlush: async () => undefined,
  shutdown: async () => undefined,
};
// The SDK as the service starts it (its context manager and W3C propagator), with spans kept here.
const sdk = new NodeSDK({ serviceName: 'traced-fetch-test', spanProcessors: [collector as never], metricReaders: [], logRecordProcessors: [], instrumentations: [] });
sdk.start();
test.after.always(async () => {
  await sdk.shutdown();
  trace.disable();
  propagation.disable();
  context.disable();
});

interface Call {
  input: unknown;
  headers: Headers;
}

/** A fetch that answers `status` and records what it was called with. */
function stub(status: number) {
  const calls: Call[] = [];
  const inner = (async (input: unknown, init?: RequestInit) => {
    calls.push({ input, headers: new Headers(init?.headers) });
    return new Response(null, { status });
  }) as typeof fetch;
  return { calls, traced: tracedFetch(inner, 'comfyui') };
}

/** Runs `work` inside a job's span, as the engine run does, and returns the spans it ended besides that one. */
async function inJob(work: () => Promise<unknown>): Promise<{ spans: Ended[]; traceId: string }> {
  ended.length = 0;
  const job = tracer().startSpan('job');
  await context.with(trace.setSpan(context.active(), job), work);
  job.end();
  return { spans: ended.filter((span) => span.name !== 'job'), traceId: job.spanContext().traceId };
}

// Pins: background calls (health probes every few seconds) outside any trace make no spans: each would be a trace
// of its own at the collector. The call goes out exactly as made.
test.serial('a call outside any span makes no span and adds no header', async (t) => {
  const { calls, traced } = stub(200);
  ended.length = 0;
  await traced('http://127.0.0.1:8188/system_stats', { headers: { 'x-probe': '1' } });
  t.deepEqual(ended, []);
  t.deepEqual([...calls[0]!.headers], [['x-probe', '1']]);
});

// Pins: one span name per endpoint (ids folded to :id), with the server's address and its default port, so
// operators can group calls; the traceparent lets ComfyUI (or a proxy) continue the job's trace.
test.serial('a call in a span is a client span named by its route, ids folded, in the job\'s trace', async (t) => {
  const { calls, traced } = stub(200);
  const { spans, traceId } = await inJob(async () => {
    await traced('https://comfy.example.com/history/5f0c7a2e-9d1b-4c3e-8a7f-0b1c2d3e4f50?x=1', { method: 'get' });
    await traced('http://comfy.internal/view?filename=a.png');
  });
  t.deepEqual(
    spans.map((span) => [span.name, span.attributes['server.address'], span.attributes['server.port'], span.attributes['http.request.method'], span.traceId === traceId]),
    [
      ['GET /history/:id', 'comfy.example.com', 443, 'GET', true],
      ['GET /view', 'comfy.internal', 80, 'GET', true],
    ],
  );
  t.regex(calls[0]!.headers.get('traceparent') ?? '', new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
});

// Pins: a call made with a Request keeps its method and its own headers (an Authorization header must still reach
// the server next to the traceparent).
test.serial('a Request keeps its method and headers', async (t) => {
  const { calls, traced } = stub(200);
  const { spans } = await inJob(() => traced(new Request('http://127.0.0.1:8188/prompt', { method: 'POST', headers: { authorization: 'Bearer k' }, body: '{}' })));
  t.deepEqual(spans.map((span) => span.name), ['POST /prompt']);
  t.is(calls[0]!.headers.get('authorization'), 'Bearer k');
  t.truthy(calls[0]!.headers.get('traceparent'));
});

// Pins: a 5xx marks the span as an error; a 4xx (a prompt not yet in the history, polled again) does not.
test.serial('a 5xx answer marks the span as an error, a 4xx does not', async (t) => {
  const failing = stub(503);
  const missing = stub(404);
  const { spans } = await inJob(async () => {
    await failing.traced('http://127.0.0.1:8188/prompt', { method: 'POST' });
    await missing.traced('http://127.0.0.1:8188/history/5f0c7a2e-9d1b-4c3e-8a7f-0b1c2d3e4f50');
  });
  t.deepEqual(
    spans.map((span) => [span.name, span.attributes['http.response.status_code'], span.status]),
    [
      ['POST /prompt', 503, SpanStatusCode.ERROR],
      ['GET /history/:id', 404, SpanStatusCode.UNSET],
    ],
  );
});
