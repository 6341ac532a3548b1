import test from 'ava';
import { webhookRetryDelay } from '../../core/domain/webhook-retry.ts';

const HOUR = { maxAttempts: 8, windowSeconds: 3600 };
const highest = () => 0.999999;
const lowest = () => 0;

test('the ceilings double from about 28 s, capped at 15 minutes, and the 8th attempt is the last', (t) => {
  // Pinned: ceil(3600 / 127 * 2^(n-1)), at most 900.
  t.deepEqual([1, 2, 3, 4, 5, 6, 7, 8].map((attempt) => webhookRetryDelay(attempt, 0, HOUR, highest)), [29, 57, 114, 227, 454, 900, 900, null]);
  t.is(webhookRetryDelay(9, 0, HOUR, highest), null);
});

test('full jitter: the delay is spread between 1 s and the ceiling', (t) => {
  t.deepEqual([1, 2, 5].map((attempt) => webhookRetryDelay(attempt, 0, HOUR, lowest)), [1, 1, 1]);
  t.is(webhookRetryDelay(4, 0, HOUR, () => 0.5), 114);
});

test('the window bounds the total time: the last wait ends at the window, and a delivery past it gives up', (t) => {
  t.is(webhookRetryDelay(5, 3500, HOUR, highest), 100);
  t.is(webhookRetryDelay(2, 3600, HOUR, highest), null);
  t.is(webhookRetryDelay(2, 4000, HOUR, highest), null);
  // Even at the ceilings, seven waits stay within the hour.
  let elapsed = 0;
  for (let attempt = 1; attempt < 8; attempt += 1) elapsed += webhookRetryDelay(attempt, elapsed, HOUR, highest) ?? 0;
  t.true(elapsed <= 3600, String(elapsed));
});

test('one attempt allowed means no retry', (t) => {
  t.is(webhookRetryDelay(1, 0, { maxAttempts: 1, windowSeconds: 3600 }, highest), null);
});
