/** What a language-model call ended with. Failures are values: the chat maps them to 502 and 504. */
export type GenerationOutcome = { ok: true; response: string } | { ok: false; reason: 'failed' | 'timeout'; cause: string };

export interface GenerateOptions {
  /** When given, the answer is streamed: each piece of text as it arrives (the outcome still carries all of it). */
  onText?(text: string): void;
}

/** A language-model server (Ollama, any OpenAI-compatible API) answering one prompt. */
export interface LanguageModel {
  generate(prompt: string, options?: GenerateOptions): Promise<GenerationOutcome>;
}
