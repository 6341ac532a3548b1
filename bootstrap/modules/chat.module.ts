import type { Container } from 'inversify';
import { CHAT_STREAM } from '../../adapters/http/chat-stream.ts';
import { chatRoutes } from '../../adapters/http/routes/chat.routes.ts';
import { OllamaLanguageModel } from '../../adapters/llm/ollama-language-model.ts';
import { OpenAiLanguageModel } from '../../adapters/llm/openai-language-model.ts';
import type { LanguageModel } from '../../core/ports/language-model.port.ts';
import { Chat } from '../../core/use-cases/chat/chat.use-case.ts';
import type { Config } from '../config.ts';
import { TOKENS } from '../tokens.ts';
import { bindFeature, forApi, type Feature, type FeaturePorts } from './feature.ts';

/** The chat of API.md §9: the language model chosen by LLM_PROVIDER, none when it is unset (503). */
export function chatFeature(ports: FeaturePorts, config: Readonly<Config>): Feature {
  const { provider, url, model, apiKey, timeoutMs, perMinute, dailyPrompts } = config.llm;
  const server = { url, model, apiKey, timeoutMs };
  const languageModel: LanguageModel | null =
    provider === 'ollama' ? new OllamaLanguageModel(server) : provider === 'openai' ? new OpenAiLanguageModel(server) : null;
  return {
    exports: {},
    routes: forApi(config, () => [
      chatRoutes({ chat: new Chat({ model: languageModel, cache: ports.cache(), clock: ports.clock(), perMinute, dailyPrompts }) }),
      (api) => api.asyncapi.addSseStream(CHAT_STREAM),
    ]),
    scheduled: [],
  };
}

export function bindChat(container: Container, config: Readonly<Config>): void {
  // The web client shows its chat page when a language model is configured.
  container.bind(TOKENS.FeatureContribution).toConstantValue({ chat: config.llm.provider !== null });
  bindFeature(container, 'chat', (ports) => chatFeature(ports, config));
}
