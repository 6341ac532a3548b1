import { context, propagation, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { NodeSDK } from '@opentelemetry/sdk-node';

export interface TracingOptions {
  /** OTLP/HTTP traces URL (…/v1/traces). */
  url: string;
  serviceName: string;
}

export interface RunningTracing {
  /** Sends the spans still buffered and unregisters the SDK, so a later start in this process works again. */
  shutdown(): Promise<void>;
}

/**
 * Starts OpenTelemetry's Node SDK for traces only: spans go to `url` as OTLP/HTTP JSON, batched (OTEL_BSP_*),
 * sampled as OTEL_TRACES_SAMPLER says, with the W3C trace-context propagator. No metrics or logs pipeline and no
 * auto-instrumentation: the spans are the ones our decorators make (ADR 031).
 */
export function startTracing(options: TracingOptions): RunningTracing {
  const sdk = new NodeSDK({
    serviceName: options.serviceName,
    traceExporter: new OTLPTraceExporter({ url: options.url }),
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [],
  });
  sdk.start();
  return {
    shutdown: async () => {
      try {
        await sdk.shutdown();
      } finally {
        trace.disable();
        propagation.disable();
        context.disable();
      }
    },
  };
}
