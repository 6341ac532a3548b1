import type { Request, Response } from 'express';
import type { Chat } from '../../../core/use-cases/chat/chat.use-case.ts';
import { PROMPT_MAX } from '../../../core/use-cases/chat/chat.use-case.ts';
import type { ApiRouter } from '../api-router.ts';
import { errorBody, sendFail, STATUS_BY_CODE } from '../error-table.ts';
import { ref } from '../openapi.ts';

const error = (description: string) => ({ description, schema: ref('Error') });

/** API.md §9. With `Accept: text/event-stream` the answer streams as server-sent events. */
export const chatRoutes = (deps: { chat: Chat }) => (api: ApiRouter) => {
  api.add(
    {
      method: 'post',
      path: '/llm/chat',
      summary: 'Ask the configured language model (Accept: text/event-stream streams `data: {"text"}` events, then `event: done` with the response)',
      tag: 'chat',
      auth: 'access',
      body: { type: 'object', required: ['prompt'], properties: { prompt: { type: 'string', minLength: 1, maxLength: PROMPT_MAX } } },
      responses: {
        200: { description: 'The answer', schema: { type: 'object', required: ['response'], properties: { response: { type: 'string' } } } },
        429: { ...error('Over the per-minute rate or the daily budget'), headers: { 'Retry-After': { schema: { type: 'integer' } } } },
        502: error('The language model failed'),
        503: error('No language model is configured'),
        504: error('The language model did not answer within LLM_TIMEOUT_MS'),
      },
    },
    async (req: Request, res: Response) => {
      const stream = (req.get('accept') ?? '').includes('text/event-stream');
      const event = (name: string | null, data: unknown) => res.write(`${name ? `event: ${name}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
      const begin = () => {
        if (!res.headersSent) res.status(200).set({ 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' }).flushHeaders();
      };
      const onText = (text: string) => {
        begin();
        event(null, { text });
      };
      const prompt = (req.body as Record<string, unknown> | undefined)?.prompt;
      const result = await deps.chat.execute({ userId: req.principal!.userId, prompt, ...(stream ? { onText } : {}) });
      if (!result.ok) {
        // Once the stream has begun, the status is sent: the failure travels as an event.
        if (res.headersSent) {
          event('error', errorBody(STATUS_BY_CODE[result.code], result.message));
          return void res.end();
        }
        if ('retryAfterSeconds' in result && result.retryAfterSeconds) res.setHeader('Retry-After', String(result.retryAfterSeconds));
        return sendFail(res, result);
      }
      if (!stream) return void res.json({ response: result.value.response });
      begin();
      event('done', { response: result.value.response });
      res.end();
    },
  );
};
