import type { SseStream } from './asyncapi.ts';
import { errorSchema } from './openapi.ts';

/** `POST /llm/chat` with `Accept: text/event-stream` (adapters/http/routes/chat.routes.ts), as the AsyncAPI document describes it. */
export const CHAT_STREAM: SseStream = {
  id: 'chatStream',
  path: '/llm/chat',
  description:
    'POST /llm/chat with `Accept: text/event-stream` (same body and auth as the JSON call) streams the answer: data-only pieces `{"text"}` as the model writes, then `event: done` with the whole response. A failure before the first piece is an ordinary HTTP error answer; after it, `event: error` with the error body, then the stream ends.',
  messages: {
    chatText: {
      event: null,
      summary: 'A piece of the answer',
      payload: { type: 'object', required: ['text'], additionalProperties: false, properties: { text: { type: 'string' } } },
    },
    chatDone: {
      event: 'done',
      summary: 'The whole answer; the stream ends',
      payload: { type: 'object', required: ['response'], additionalProperties: false, properties: { response: { type: 'string' } } },
    },
    chatError: { event: 'error', summary: 'The model failed mid-answer (the error body of API.md); the stream ends', payload: errorSchema },
  },
};
