import test from 'ava';
import type { EventBus } from '../../core/ports/user-events.port.ts';

export type HandlerErrorReporter = (error: unknown, channel: string) => void;

/**
 * Two ends of one bus. On a cross-process bus they are two instances with their own connections, as
 * in two processes; the in-process bus is one process's only, so both ends are the same instance.
 */
export interface BusPair {
  publisher: EventBus;
  subscriber: EventBus;
}

/** `onHandlerError` goes to the subscriber's end (where handlers run). */
export type MakeBusPair = (onHandlerError?: HandlerErrorReporter) => Promise<BusPair>;

export async function waitFor(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

let counter = 0;
/** Tests run concurrently, possibly on a shared server: each keeps to channels of its own. */
const unique = (name: string) => `${name}-${(counter += 1)}-${Math.random().toString(36).slice(2, 8)}`;

/** Registers the EventBus contract for one adapter. */
export function eventBusContract(name: string, makePair: MakeBusPair): void {
  const open = async (t: { teardown(fn: () => Promise<void>): void }, onHandlerError?: HandlerErrorReporter): Promise<BusPair> => {
    const pair = await makePair(onHandlerError);
    t.teardown(async () => {
      await pair.subscriber.close();
      if (pair.publisher !== pair.subscriber) await pair.publisher.close();
    });
    return pair;
  };

  /**
   * Messages of one publisher arrive in publish order, across channels too: once a marker published
   * last has arrived, everything published before it has been delivered or never will be.
   */
  const flush = async ({ publisher, subscriber }: BusPair): Promise<void> => {
    const marker = unique('marker');
    let seen = false;
    const unsubscribe = await subscriber.subscribe(marker, () => {
      seen = true;
    });
    await publisher.publish(marker, 1);
    await waitFor(() => seen, 'the marker');
    await unsubscribe();
  };

  test(`${name}: a message published on one end reaches every handler of the channel on the other, in publish order`, async (t) => {
    const pair = await open(t);
    const channel = unique('events');
    const first: unknown[] = [];
    const second: unknown[] = [];
    await pair.subscriber.subscribe(channel, (payload) => first.push(payload));
    await pair.subscriber.subscribe(channel, (payload) => second.push(payload));
    for (let n = 1; n <= 20; n++) await pair.publisher.publish(channel, { n });
    await waitFor(() => first.length === 20 && second.length === 20, 'twenty messages on both handlers');
    const expected = Array.from({ length: 20 }, (_, i) => ({ n: i + 1 }));
    t.deepEqual(first, expected);
    t.deepEqual(second, expected);
  });

  test(`${name}: the same function subscribed twice is called twice, like two subscribers`, async (t) => {
    const pair = await open(t);
    const channel = unique('twice');
    const got: unknown[] = [];
    const handler = (payload: unknown) => void got.push(payload);
    const unsubscribeFirst = await pair.subscriber.subscribe(channel, handler);
    await pair.subscriber.subscribe(channel, handler);
    await pair.publisher.publish(channel, 'a');
    await waitFor(() => got.length === 2, 'two deliveries');
    await unsubscribeFirst();
    await pair.publisher.publish(channel, 'b');
    await flush(pair);
    t.deepEqual(got, ['a', 'a', 'b']);
  });

  test(`${name}: several channels: each handler gets its own channel's messages only`, async (t) => {
    const pair = await open(t);
    const [red, green, blue] = [unique('red'), unique('green'), unique('blue')];
    const got: Record<string, unknown[]> = { red: [], green: [], blue: [] };
    await pair.subscriber.subscribe(red, (payload) => got.red!.push(payload));
    await pair.subscriber.subscribe(green, (payload) => got.green!.push(payload));
    await pair.subscriber.subscribe(blue, (payload) => got.blue!.push(payload));
    await pair.publisher.publish(red, 'r1');
    await pair.publisher.publish(green, 'g1');
    await pair.publisher.publish(red, 'r2');
    await pair.publisher.publish(unique('nobody'), 'lost');
    await flush(pair);
    t.deepEqual(got, { red: ['r1', 'r2'], green: ['g1'], blue: [] });
  });

  test(`${name}: unsubscribe stops that handler only; after the last one the channel is quiet; subscribing again works`, async (t) => {
    const pair = await open(t);
    const channel = unique('leave');
    const a: unknown[] = [];
    const b: unknown[] = [];
    const leaveA = await pair.subscriber.subscribe(channel, (payload) => a.push(payload));
    const leaveB = await pair.subscriber.subscribe(channel, (payload) => b.push(payload));
    await pair.publisher.publish(channel, 1);
    await waitFor(() => a.length === 1 && b.length === 1, 'the first message');
    await leaveA();
    await leaveA(); // twice is harmless and must not remove the other handler
    await pair.publisher.publish(channel, 2);
    await flush(pair);
    t.deepEqual(a, [1]);
    t.deepEqual(b, [1, 2]);
    await leaveB();
    await pair.publisher.publish(channel, 3);
    await flush(pair);
    t.deepEqual(b, [1, 2]);
    const c: unknown[] = [];
    await pair.subscriber.subscribe(channel, (payload) => c.push(payload));
    await pair.publisher.publish(channel, 4);
    await waitFor(() => c.length === 1, 'the message after subscribing again');
    t.deepEqual(c, [4]);
    t.deepEqual([a, b], [[1], [1, 2]]);
  });

  test(`${name}: a handler that throws or rejects is reported and does not stop the others`, async (t) => {
    const errors: string[] = [];
    const pair = await open(t, (error, channel) => errors.push(`${channel}: ${(error as Error).message}`));
    const channel = unique('boom');
    const got: unknown[] = [];
    await pair.subscriber.subscribe(channel, () => {
      throw new Error('sync boom');
    });
    await pair.subscriber.subscribe(channel, (() => Promise.reject(new Error('async boom'))) as () => void);
    await pair.subscriber.subscribe(channel, (payload) => got.push(payload));
    await pair.publisher.publish(channel, 1);
    await pair.publisher.publish(channel, 2);
    await waitFor(() => got.length === 2 && errors.length === 4, 'both messages and four reports');
    t.deepEqual(got, [1, 2]);
    t.deepEqual(errors.sort(), [`${channel}: async boom`, `${channel}: async boom`, `${channel}: sync boom`, `${channel}: sync boom`]);
  });

  test(`${name}: payloads arrive as their JSON form`, async (t) => {
    const pair = await open(t);
    const channel = unique('json');
    const got: unknown[] = [];
    await pair.subscriber.subscribe(channel, (payload) => got.push(payload));
    const envelope = {
      userId: 'u-1',
      seq: 42,
      at: new Date('2030-01-01T00:00:00Z'),
      event: { type: 'job.completed', jobId: 'j', outputs: [{ name: 'ünïcødé ✓ 🖼', size: 12.5, tags: null, missing: undefined }] },
      nested: { deep: { list: [1, 'two', [3], { four: true }] } },
    };
    await pair.publisher.publish(channel, envelope);
    await pair.publisher.publish(channel, 'plain text');
    await pair.publisher.publish(channel, 7);
    await pair.publisher.publish(channel, null);
    await pair.publisher.publish(channel, [1, { a: 'b' }]);
    await waitFor(() => got.length === 5, 'five payloads');
    t.deepEqual(got, [JSON.parse(JSON.stringify(envelope)), 'plain text', 7, null, [1, { a: 'b' }]]);
    t.is((got[0] as { at: unknown }).at, '2030-01-01T00:00:00.000Z');
    t.false('missing' in (got[0] as { event: { outputs: object[] } }).event.outputs[0]!);
  });

  test(`${name}: a payload without a JSON form (undefined, a function) is refused by publish; the channel goes on`, async (t) => {
    const pair = await open(t);
    const channel = unique('no-json');
    const got: unknown[] = [];
    await pair.subscriber.subscribe(channel, (payload) => got.push(payload));
    await t.throwsAsync(() => pair.publisher.publish(channel, undefined), { instanceOf: TypeError, message: /no JSON form/ });
    await t.throwsAsync(() => pair.publisher.publish(channel, () => 1), { instanceOf: TypeError, message: /no JSON form/ });
    await pair.publisher.publish(channel, 'after');
    await waitFor(() => got.length === 1, 'the next message');
    t.deepEqual(got, ['after']);
  });

  test(`${name}: a publish before anything subscribed (nobody listens, nothing declared yet) succeeds; a later subscriber gets what follows`, async (t) => {
    const pair = await open(t);
    const channel = unique('early');
    await pair.publisher.publish(channel, 'nobody listens');
    await flush(pair);
    const got: unknown[] = [];
    await pair.subscriber.subscribe(channel, (payload) => got.push(payload));
    await pair.publisher.publish(channel, 'heard');
    await waitFor(() => got.length === 1, 'the message after subscribing');
    await flush(pair);
    t.deepEqual(got, ['heard']);
  });

  test(`${name}: close: a message published just before the close is not handed to a handler once close has returned`, async (t) => {
    const pair = await open(t);
    const channel = unique('in-flight');
    let closed = false;
    const late: unknown[] = [];
    await pair.subscriber.subscribe(channel, (payload) => void (closed && late.push(payload)));
    await pair.publisher.publish(channel, 'in flight');
    await pair.subscriber.close();
    closed = true;
    await new Promise((resolve) => setTimeout(resolve, 100));
    t.deepEqual(late, []);
  });

  test(`${name}: close: the unsubscribe functions of its handlers, called after the close, resolve`, async (t) => {
    const pair = await open(t);
    const leave = await pair.subscriber.subscribe(unique('leave-late'), () => undefined);
    await pair.subscriber.close();
    await t.notThrowsAsync(leave());
  });

  test(`${name}: close: the closed end refuses publish and subscribe, and its handlers get nothing more`, async (t) => {
    const pair = await open(t);
    const channel = unique('close');
    const got: unknown[] = [];
    await pair.subscriber.subscribe(channel, (payload) => got.push(payload));
    await pair.publisher.publish(channel, 'before');
    await waitFor(() => got.length === 1, 'the message before close');
    await pair.subscriber.close();
    await pair.subscriber.close(); // twice is harmless
    // The bus's own refusal, not a failure of its connection ("Connection is closed", "Channel closed") on the way.
    await t.throwsAsync(() => pair.subscriber.publish(channel, 'x'), { message: 'the event bus is closed' });
    await t.throwsAsync(() => pair.subscriber.subscribe(channel, () => undefined), { message: 'the event bus is closed' });
    if (pair.publisher !== pair.subscriber) await pair.publisher.publish(channel, 'after');
    await new Promise((resolve) => setTimeout(resolve, 100));
    t.deepEqual(got, ['before']);
  });
}
