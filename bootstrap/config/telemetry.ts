import type { Reader } from './reader.ts';
import type { Role } from './server.ts';

/**
 * OpenTelemetry traces (ADR 031): on only when an OTLP endpoint is configured, with the standard variables.
 * `traces: null` means no SDK is started and no span is made.
 */
export interface TelemetryConfig {
  traces: {
    /** Where spans are POSTed (OTLP/HTTP, JSON): OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as is, else OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces. */
    url: string;
    serviceName: string;
  } | null;
}

export function readTelemetry(read: Reader, roles: readonly Role[]): TelemetryConfig {
  const tracesEndpoint = read.string('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', '');
  const endpoint = read.string('OTEL_EXPORTER_OTLP_ENDPOINT', '');
  // An API-only process is the api; any process running jobs reports as the worker, the embedded default included.
  const serviceName = read.string('OTEL_SERVICE_NAME', roles.includes('worker') && !roles.includes('api') ? 'media-gen-worker' : 'media-gen-api');
  const url = tracesEndpoint || (endpoint ? `${endpoint.replace(/\/$/, '')}/v1/traces` : '');
  if (!url) return { traces: null };
  read.url(tracesEndpoint ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT', tracesEndpoint || endpoint, ['http:', 'https:']);
  return { traces: { url, serviceName } };
}
