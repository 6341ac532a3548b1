import type { GenerationOutcome } from '../../core/ports/language-model.port.ts';

export interface LlmServer {
  /** Base URL (LLM_URL), without a trailing slash. */
  url: string;
  model: string;
  apiKey: string | null;
  /** The whole call, streamed answer included. */
  timeoutMs: number;
}

/**
 * POSTs `body` as JSON and hands the response to `read`, all within the timeout. Every failure becomes an
 * outcome: the timeout as `timeout`, anything else (refused connection, non-2xx, unreadable answer) as `failed`.
 */
export async function callLlm(server: LlmServer, path: string, body: unknown, read: (response: Response) => Promise<string>): Promise<GenerationOutcome> {
  const signal = AbortSignal.timeout(server.timeoutMs);
  try {
    const response = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(server.apiKey ? { authorization: `Bearer ${server.apiKey}` } : {}) },
      body: JSON.stringify(body),
      signal,
    });
    if (!response.ok) throw new Error(`HTTP ${response.status}: ${(await response.text()).slice(0, 300)}`);
    return { ok: true, response: await read(response) };
  } catch (error) {
    if (signal.aborted) return { ok: false, reason: 'timeout', cause: `no complete answer within ${server.timeoutMs} ms` };
    return { ok: false, reason: 'failed', cause: error instanceof Error ? error.message : String(error) };
  }
}

/** The lines of a streamed body, as they arrive. */
export async function* lines(response: Response): AsyncGenerator<string> {
  if (!response.body) return;
  let buffered = '';
  for await (const chunk of response.body.pipeThrough(new TextDecoderStream())) {
    buffered += chunk;
    let end: number;
    while ((end = buffered.indexOf('\n')) >= 0) {
      yield buffered.slice(0, end).replace(/\r$/, '');
      buffered = buffered.slice(end + 1);
    }
  }
  if (buffered.length > 0) yield buffered;
}

/** Reads a JSON field that must be a string, or throws (a malformed answer is an upstream failure). */
export function textAt(value: unknown, describe: string): string {
  if (typeof value !== 'string') throw new Error(`the answer has no ${describe}`);
  return value;
}
