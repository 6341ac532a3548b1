import { fail, ok, validationFailed, type Fail, type Result } from '../../domain/result.ts';
import type { Cache } from '../../ports/cache.port.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { LanguageModel } from '../../ports/language-model.port.ts';

export const PROMPT_MAX = 8000;

export interface ChatDeps {
  /** Null when no language-model server is configured. */
  model: LanguageModel | null;
  cache: Cache;
  clock: Clock;
  /** Prompts a user may send per minute. */
  perMinute: number;
  /** Answered prompts a user may have per UTC day. */
  dailyPrompts: number;
}

export type ChatFailure = Fail & { retryAfterSeconds?: number };

/**
 * One prompt to the configured language model, within a per-user rate (prompts per minute) and a
 * per-user daily budget (answered prompts per UTC day; a failed upstream call does not use it up).
 * Both live on the cache port, so they hold across API processes when it is Redis.
 */
export class Chat {
  constructor(private readonly deps: ChatDeps) {}

  async execute(input: { userId: string; prompt: unknown; onText?(text: string): void }): Promise<Result<{ response: string }> | ChatFailure> {
    const { model, cache, clock, perMinute, dailyPrompts } = this.deps;
    if (typeof input.prompt !== 'string' || input.prompt.trim().length === 0 || input.prompt.length > PROMPT_MAX) {
      return validationFailed([{ field: 'prompt', message: `must be 1 to ${PROMPT_MAX} characters` }]);
    }
    if (!model) return fail('INTEGRATION.NOT_CONFIGURED', 'Chat is not configured on this server (LLM_PROVIDER)');

    const rate = await cache.increment(`llm:rate:${input.userId}`, 60);
    if (rate.count > perMinute) return limited(`At most ${perMinute} prompts a minute`, rate.ttlSeconds);
    const now = clock.now();
    // The prompt takes its place in the budget before the call, so prompts sent together cannot all pass a check
    // made before any of them was answered; the place is given back when refused or when the model does not answer.
    const budgetKey = `llm:budget:${input.userId}:${now.toISOString().slice(0, 10)}`;
    const taken = await cache.increment(budgetKey, secondsToMidnight(now));
    if (taken.count > dailyPrompts) {
      await cache.decrement(budgetKey);
      return limited(`The daily budget of ${dailyPrompts} prompts is used up`, secondsToMidnight(now));
    }
    let answered = false;
    try {
      const outcome = await model.generate(input.prompt, input.onText ? { onText: input.onText } : {});
      if (!outcome.ok) {
        return outcome.reason === 'timeout'
          ? fail('UPSTREAM.TIMEOUT', 'The language model did not answer in time')
          : fail('UPSTREAM.FAILED', 'The language model failed to answer');
      }
      answered = true;
      return ok({ response: outcome.response });
    } finally {
      if (!answered) await cache.decrement(budgetKey);
    }
  }
}

const limited = (message: string, retryAfterSeconds: number): ChatFailure => ({ ...fail('RATE_LIMITED', message), retryAfterSeconds: Math.max(1, retryAfterSeconds) });

function secondsToMidnight(now: Date): number {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((midnight - now.getTime()) / 1000));
}
