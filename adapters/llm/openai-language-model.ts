import type { GenerateOptions, GenerationOutcome, LanguageModel } from '../../core/ports/language-model.port.ts';
import { callLlm, lines, textAt, type LlmServer } from './llm-http.ts';

interface Choice {
  message?: { content?: unknown };
  delta?: { content?: unknown };
}

/** Any OpenAI-compatible `POST /v1/chat/completions` (OpenAI, vLLM, llama.cpp, LM Studio...), SSE when streaming. */
export class OpenAiLanguageModel implements LanguageModel {
  private readonly path: string;

  constructor(private readonly server: LlmServer) {
    // LLM_URL may name the API root with or without its /v1.
    this.path = server.url.endsWith('/v1') ? '/chat/completions' : '/v1/chat/completions';
  }

  generate(prompt: string, options: GenerateOptions = {}): Promise<GenerationOutcome> {
    const stream = Boolean(options.onText);
    const body = { model: this.server.model, messages: [{ role: 'user', content: prompt }], stream };
    return callLlm(this.server, this.path, body, async (response) => {
      if (!stream) return textAt(((await response.json()) as { choices?: Choice[] }).choices?.[0]?.message?.content, 'choices[0].message.content');
      let whole = '';
      for await (const line of lines(response)) {
        if (!line.startsWith('data:')) continue;
        const data = line.slice(5).trim();
        if (data === '[DONE]') return whole;
        const event = JSON.parse(data) as { choices?: Choice[]; error?: { message?: unknown } | string };
        // An error in the stream (OpenAI, vLLM and LM Studio send one after the status line was already 200): the
        // answer so far is no answer, also when the server then ends the stream with [DONE].
        if (event.error !== undefined) throw new Error(`OpenAI-compatible server: ${typeof event.error === 'object' && event.error !== null && typeof event.error.message === 'string' ? event.error.message : JSON.stringify(event.error)}`);
        const text = event.choices?.[0]?.delta?.content;
        if (typeof text === 'string' && text) {
          options.onText!(text);
          whole += text;
        }
      }
      throw new Error('the stream ended before [DONE]');
    });
  }
}
