import type { Reader } from './reader.ts';

/**
 * Metrics (ADR 029): off unless configured. METRICS_TOKEN serves `GET /metrics` on the API's own server behind
 * `Authorization: Bearer <token>`; METRICS_PORT opens a separate listener (on METRICS_HOST, 127.0.0.1 by default)
 * in every process, api and worker alike, and asks for the token there too when one is set.
 */
export interface MetricsConfig {
  token: string | null;
  port: number | null;
  host: string;
}

export interface ObservabilityConfig {
  metrics: MetricsConfig;
}

/** Long enough that guessing it is hopeless. */
const TOKEN_MIN_LENGTH = 16;

export function readObservability(read: Reader): ObservabilityConfig {
  const token = read.raw('METRICS_TOKEN') ?? null;
  if (token !== null && (token.length < TOKEN_MIN_LENGTH || /\s/.test(token))) {
    read.problems.push(`METRICS_TOKEN must be at least ${TOKEN_MIN_LENGTH} characters without spaces`);
  }
  const port = read.raw('METRICS_PORT') === undefined ? null : read.int('METRICS_PORT', 0, 0, 65535);
  const host = read.string('METRICS_HOST', '127.0.0.1');
  return { metrics: { token, port, host } };
}
