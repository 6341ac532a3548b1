import type { GenerateOptions, GenerationOutcome, LanguageModel } from '../../core/ports/language-model.port.ts';
import { callLlm, lines, textAt, type LlmServer } from './llm-http.ts';

/** Ollama's `POST /api/generate`: one JSON answer, or NDJSON pieces when streaming. */
export class OllamaLanguageModel implements LanguageModel {
  constructor(private readonly server: LlmServer) {}

  generate(prompt: string, options: GenerateOptions = {}): Promise<GenerationOutcome> {
    const stream = Boolean(options.onText);
    return callLlm(this.server, '/api/generate', { model: this.server.model, prompt, stream }, async (response) => {
      if (!stream) return textAt(((await response.json()) as { response?: unknown }).response, '"response"');
      let whole = '';
      for await (const line of lines(response)) {
        if (line.trim() === '') continue;
        const piece = JSON.parse(line) as { response?: unknown; error?: unknown; done?: unknown };
        if (piece.error !== undefined) throw new Error(`Ollama: ${String(piece.error)}`);
        const text = textAt(piece.response ?? '', '"response"');
        if (text) options.onText!(text);
        whole += text;
        if (piece.done === true) return whole;
      }
      throw new Error('the stream ended before "done"');
    });
  }
}
