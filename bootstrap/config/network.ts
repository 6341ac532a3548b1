import { createRequire } from 'node:module';
import { DEFAULT_CHECK_TIMEOUT_MS } from '../../adapters/http/routes/health.routes.ts';
import type { Reader } from './reader.ts';

const DEFAULT_TRUST_PROXY = 'loopback';

/** What Express's `trust proxy` setting takes: all or nothing, a hop count, or addresses, subnets and the names loopback, linklocal, uniquelocal. */
export type TrustProxy = boolean | number | string;

/** Which proxies' X-Forwarded-For this process believes (TRUST_PROXY), the workers' probe port (HEALTH_PORT) and how long a health check may take (HEALTH_CHECK_TIMEOUT_MS). */
export interface NetworkConfig {
  trustProxy: TrustProxy;
  /** null: no health listener (the api role serves the probes on PORT anyway). */
  healthPort: number | null;
  /** A check slower than this counts as failed in the health and readiness answers (default 3000). */
  healthCheckTimeoutMs: number;
}

/**
 * TRUST_PROXY is validated by Express itself (the same compile it runs on `app.set`), so whatever Express
 * accepts is accepted and a typo stops the start instead of silently trusting nobody (or everybody).
 */
export function parseTrustProxy(value: string): { ok: true; value: TrustProxy } | { ok: false; problem: string } {
  const lower = value.toLowerCase();
  if (lower === 'true' || lower === 'false') return { ok: true, value: lower === 'true' };
  // A bare number is a hop count; Express would read the string "2" as the address 0.0.0.2.
  if (/^\d+$/.test(value)) return { ok: true, value: Number(value) };
  // Express is loaded only for a value of the operator's: a refused configuration is reported before any framework loads.
  if (value === DEFAULT_TRUST_PROXY) return { ok: true, value };
  try {
    const express = createRequire(import.meta.url)('express') as typeof import('express');
    express().set('trust proxy', value);
    return { ok: true, value };
  } catch (error) {
    return { ok: false, problem: `TRUST_PROXY must be true, false, a hop count or comma-separated addresses, CIDR subnets or loopback, linklocal, uniquelocal (${(error as Error).message})` };
  }
}

export function readNetwork(read: Reader): NetworkConfig {
  const raw = read.string('TRUST_PROXY', DEFAULT_TRUST_PROXY);
  const parsed = parseTrustProxy(raw);
  if (!parsed.ok) read.problems.push(parsed.problem);
  const healthPort = read.raw('HEALTH_PORT') === undefined ? null : read.int('HEALTH_PORT', 0, 0, 65535);
  const healthCheckTimeoutMs = read.int('HEALTH_CHECK_TIMEOUT_MS', DEFAULT_CHECK_TIMEOUT_MS, 100, 60_000);
  return { trustProxy: parsed.ok ? parsed.value : DEFAULT_TRUST_PROXY, healthPort, healthCheckTimeoutMs };
}
