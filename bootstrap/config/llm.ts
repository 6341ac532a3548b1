import type { Reader } from './reader.ts';

/** The chat's language-model server (LLM_*); `provider: null` when not configured (the route answers 503). */
export interface LlmConfig {
  provider: 'ollama' | 'openai' | null;
  url: string;
  model: string;
  apiKey: string | null;
  timeoutMs: number;
  /** Prompts one user may send per minute (429 with Retry-After beyond). */
  perMinute: number;
  /** Answered prompts one user may have per UTC day (429 until midnight beyond). */
  dailyPrompts: number;
}

/** LLM_PROVIDER (ollama or openai) with LLM_URL and LLM_MODEL; unset: the chat answers 503. */
export function readLlm(read: Reader): LlmConfig {
  const provider = read.raw('LLM_PROVIDER') === undefined ? null : read.oneOf('LLM_PROVIDER', 'ollama', ['ollama', 'openai'] as const);
  const url = (provider ? read.required('LLM_URL', 'when LLM_PROVIDER is set') : read.string('LLM_URL', '')).replace(/\/$/, '');
  if (url) read.url('LLM_URL', url, ['http:', 'https:']);
  return {
    provider,
    url,
    model: provider ? read.required('LLM_MODEL', 'when LLM_PROVIDER is set') : read.string('LLM_MODEL', ''),
    apiKey: read.raw('LLM_API_KEY') ?? null,
    timeoutMs: read.int('LLM_TIMEOUT_MS', 60_000, 100, 600_000),
    perMinute: read.int('LLM_RATE_LIMIT_PER_MINUTE', 10, 1, 10_000),
    dailyPrompts: read.int('LLM_DAILY_PROMPTS', 200, 1, 1_000_000),
  };
}
