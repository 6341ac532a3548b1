/**
 * Reads one environment variable at a time and keeps every problem it finds, so an operator sees all of them
 * in one start-up attempt. Each section reader (bootstrap/config/*.ts) takes one and adds to its problems.
 */
export type Env = Record<string, string | undefined>;

const DURATION = /^(\d+)\s*(ms|s|m|h|d)?$/;
const UNIT_SECONDS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400 };

export class Reader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  raw(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  }

  string(name: string, fallback: string): string {
    return this.raw(name) ?? fallback;
  }

  required(name: string, why: string): string {
    const value = this.raw(name);
    if (value === undefined) {
      this.problems.push(`${name} is required ${why}`);
      return '';
    }
    return value;
  }

  int(name: string, fallback: number, min: number, max: number): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
      this.problems.push(`${name} must be an integer from ${min} to ${max} (got "${value}")`);
      return fallback;
    }
    return parsed;
  }

  bool(name: string, fallback: boolean): boolean {
    const value = this.raw(name)?.toLowerCase();
    if (value === undefined) return fallback;
    if (['true', '1', 'yes'].includes(value)) return true;
    if (['false', '0', 'no'].includes(value)) return false;
    this.problems.push(`${name} must be true or false (got "${value}")`);
    return fallback;
  }

  oneOf<T extends string>(name: string, fallback: T, allowed: readonly T[]): T {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(value)) {
      this.problems.push(`${name} must be one of ${allowed.join(', ')} (got "${value}")`);
      return fallback;
    }
    return value as T;
  }

  list(name: string): string[] {
    return (this.raw(name) ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item.length > 0);
  }

  /** Seconds, from "900", "15m", "7d"... */
  duration(name: string, fallbackSeconds: number): number {
    const value = this.raw(name);
    if (value === undefined) return fallbackSeconds;
    const match = DURATION.exec(value);
    if (!match) {
      this.problems.push(`${name} must be a duration such as 900, 15m, 12h or 7d (got "${value}")`);
      return fallbackSeconds;
    }
    const seconds = Number(match[1]) * UNIT_SECONDS[match[2] ?? 's']!;
    if (seconds < 1) {
      this.problems.push(`${name} must be at least one second`);
      return fallbackSeconds;
    }
    return Math.floor(seconds);
  }

  url(name: string, value: string, protocols: string[]): void {
    try {
      const parsed = new URL(value);
      if (!protocols.includes(parsed.protocol)) {
        this.problems.push(`${name} must use ${protocols.join(' or ')} (got "${parsed.protocol}")`);
      }
    } catch {
      this.problems.push(`${name} is not a valid URL`);
    }
  }
}
