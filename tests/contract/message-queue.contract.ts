import test from 'ava';
import type { DeliveredMessage, HandlerOutcome, MessageQueue, PeekedMessage } from '../../core/ports/queue.port.ts';

/** Short delays so the suite stays fast; every adapter takes them through its constructor options. */
export const FAST = { pollIntervalMs: 20, backoff: { initialSeconds: 0.05, maxSeconds: 0.4 } };

export interface MadeQueue {
  queue: MessageQueue;
}

export interface QueueBackend {
  /** A fresh queue over this backend's shared storage. */
  make(): Promise<MadeQueue>;
  /** A queue over the same storage through its own connections, like another process. */
  makeOther(): Promise<MadeQueue>;
  dispose(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

let counter = 0;
/** Tests share a backend's storage; each keeps to its own environment. */
const uniqueEnv = (name: string) => `${name}-${(counter += 1)}-${Math.random().toString(36).slice(2, 6)}`;
const inEnv = (messages: PeekedMessage[], environment: string) => messages.filter((m) => m.attributes['Environment'] === environment);
const base = { concurrency: 1, maxAttempts: 3, visibilitySeconds: 5 };

/**
 * What an adapter's broker can and cannot do, where the contract lets adapters differ (the port says so):
 * - `deduplicates`: a second publish of a messageId (even after the first was acknowledged, within the tombstone
 *   retention) delivers nothing. Brokers without it deliver it again; consumers are idempotent anyway.
 * - `peekReturnsCount`: peeking returns the messages to the broker, which counts that as a delivery (RabbitMQ's
 *   quorum queues): each peek adds one to the next delivery's attempt number.
 */
export interface QueueCapabilities {
  deduplicates: boolean;
  peekReturnsCount: boolean;
  /** peek lists a message waiting out a retry delay (SQS lists only visible messages). */
  peekSeesDelayed: boolean;
  /** stats() counts each task type apart (SQS keeps them all on one queue: one entry with taskType null). */
  statsByTaskType?: boolean;
  /** stats() tells the oldest waiting message's age (RabbitMQ and SQS cannot). */
  statsOldestAge?: boolean;
  /**
   * A message whose onDeadLetter threw is handed back to the broker at once (RabbitMQ, SQS); the database and
   * memory queues leave it taken until its visibility runs out.
   */
  handsBackFailedDeadLetter?: boolean;
}

/** Registers the MessageQueue contract for one adapter. */
export function messageQueueContract(name: string, setup: () => Promise<QueueBackend>, capabilities: QueueCapabilities = { deduplicates: true, peekReturnsCount: false, peekSeesDelayed: true, statsByTaskType: true, statsOldestAge: true }): void {
  let backend: Promise<QueueBackend> | null = null;
  const made: MadeQueue[] = [];
  const open = async (other = false): Promise<MadeQueue> => {
    backend ??= setup();
    const b = await backend;
    const queue = await (other ? b.makeOther() : b.make());
    made.push(queue);
    return queue;
  };
  test.after.always(async () => {
    for (const { queue } of made) await queue.close();
    if (backend) await (await backend).dispose();
  });

  test(`${name}: publish → consume → ack delivers once with its attributes, then the message is gone`, async (t) => {
    const { queue } = await open();
    const environment = uniqueEnv('ack');
    await queue.check();
    const { messageId } = await queue.publish({ taskType: 'generation', environment, body: { jobId: 'j1', nested: { a: [1, 2] } } });
    const seen: DeliveredMessage[] = [];
    // A visibility the ack fits in under a loaded run (SQS treats a receipt within 250 ms of expiry as lost; 1 s was
    // seen to expire before the ack on a machine with a load average of 11, and 2 s once in a full CI run on SQS FIFO).
    const consumer = await queue.consume({ ...base, taskTypes: ['generation'], environment, visibilitySeconds: 4 }, async (message) => {
      seen.push(message);
      return { action: 'ack' };
    });
    await waitFor(() => seen.length === 1, 'the delivery');
    await sleep(4200); // longer than the visibility: an acked message never comes back
    await consumer.stop();
    t.is(seen.length, 1);
    t.like(seen[0], { id: messageId, taskType: 'generation', environment, attempt: 1 });
    t.deepEqual(seen[0]!.body, { jobId: 'j1', nested: { a: [1, 2] } });
    t.deepEqual(inEnv(await queue.peek(10_000), environment), []);
    t.deepEqual(inEnv(await queue.deadLetters(10_000), environment), []);
  });

  test(`${name}: a message's trace context comes back with every delivery, retries included; none when it had none`, async (t) => {
    const { queue } = await open();
    const environment = uniqueEnv('trace');
    const trace = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', tracestate: 'vendor=opaque' };
    const traced = await queue.publish({ taskType: 'generation', environment, body: { n: 'traced' }, trace });
    const plain = await queue.publish({ taskType: 'generation', environment, body: { n: 'plain' } });
    const seen: { id: string; attempt: number; trace: unknown }[] = [];
    const consumer = await queue.consume({ ...base, concurrency: 2, taskTypes: ['generation'], environment }, async (message) => {
      seen.push({ id: message.id, attempt: message.attempt, trace: message.trace });
      return message.attempt === 1 ? { action: 'retry', delaySeconds: 0.05 } : { action: 'ack' };
    });
    // SQS retries after at least 1 s (it counts whole seconds): room for that on a loaded machine.
    await waitFor(() => seen.length === 4, 'both messages twice', 15_000);
    await consumer.stop();
    const of = (id: string) => seen.filter((s) => s.id === id).sort((a, b) => a.attempt - b.attempt).map((s) => [s.attempt, s.trace]);
    t.deepEqual(of(traced.messageId), [[1, trace], [2, trace]]);
    t.deepEqual(of(plain.messageId), [[1, undefined], [2, undefined]]);
  });

  test(`${name}: a consumer gets only its environment and task types`, async (t) => {
    const { queue } = await open();
    const [production, local] = [uniqueEnv('production'), uniqueEnv('local')];
    const wanted = await queue.publish({ taskType: 'generation', environment: production, body: { n: 'wanted' } });
    await queue.publish({ taskType: 'generation', environment: local, body: { n: 'other env' } });
    await queue.publish({ taskType: 'publish', environment: production, body: { n: 'other type' } });
    const seen: unknown[] = [];
    // Room for all three at once: a consumer that let the wrong ones through would run them straight away.
    const consumer = await queue.consume({ ...base, concurrency: 3, taskTypes: ['generation'], environment: production }, async (message) => {
      seen.push(message.body);
      return { action: 'ack' };
    });
    await waitFor(() => seen.length === 1, 'the production generation message');
    await sleep(1000); // several receives (SQS pauses 200 ms after one that held only others' messages)
    await consumer.stop();
    t.deepEqual(seen, [{ n: 'wanted' }]);
    t.deepEqual(inEnv(await queue.peek(10_000), local).map((m) => m.body), [{ n: 'other env' }]);
    const left = inEnv(await queue.peek(10_000), production);
    t.deepEqual(left.map((m) => [m.body, m.attributes]), [[{ n: 'other type' }, { TaskType: 'publish', Environment: production }]]);
    t.false(left.some((m) => m.id === wanted.messageId));
  });

  test(`${name}: retry waits its delay and counts attempts; waiting messages show in peek`, async (t) => {
    const { queue } = await open();
    const environment = uniqueEnv('retry');
    await queue.publish({ taskType: 'generation', environment, body: { n: 1 } });
    const seen: { attempt: number; at: number }[] = [];
    const consumer = await queue.consume({ ...base, taskTypes: ['generation'], environment }, async (message) => {
      seen.push({ attempt: message.attempt, at: Date.now() });
      return message.attempt === 1 ? { action: 'retry', delaySeconds: 1.2 } : { action: 'ack' };
    });
    await waitFor(() => seen.length === 1, 'the first delivery');
    // Between its settling and its redelivery (1.2 s: room for a peek of every queue on a loaded machine), a delayed
    // retry is waiting, not gone.
    if (capabilities.peekSeesDelayed) {
      await waitFor(async () => seen.length === 1 && inEnv(await queue.peek(10_000), environment).length === 1, 'the delayed retry in peek');
    }
    await waitFor(() => seen.length === 2, 'the retry');
    await consumer.stop();
    t.deepEqual(
      seen.map((s) => s.attempt),
      [1, 2],
    );
    t.true(seen[1]!.at - seen[0]!.at >= 1100, `retried after ${seen[1]!.at - seen[0]!.at} ms`);
    t.deepEqual(inEnv(await queue.peek(10_000), environment), []);
  });

  test(`${name}: retry on the last attempt, or an explicit dead, goes to the dead letters and never comes back`, async (t) => {
    const { queue } = await open();
    const environment = uniqueEnv('dead');
    const retried = await queue.publish({ taskType: 'generation', environment, body: { n: 'retried' } });
    const killed = await queue.publish({ taskType: 'publish', environment, body: { n: 'killed' } });
    const attempts: Record<string, number[]> = {};
    const consumer = await queue.consume({ ...base, taskTypes: ['generation', 'publish'], environment }, async (message): Promise<HandlerOutcome> => {
      (attempts[message.id] ??= []).push(message.attempt);
      return message.taskType === 'publish' ? { action: 'dead', reason: 'bad platform' } : { action: 'retry', delaySeconds: 0 };
    });
    await waitFor(async () => inEnv(await queue.deadLetters(10_000), environment).length === 2, 'two dead letters');
    await sleep(300);
    await consumer.stop();
    t.deepEqual(attempts[retried.messageId], [1, 2, 3]);
    t.deepEqual(attempts[killed.messageId], [1]);
    const dead = inEnv(await queue.deadLetters(10_000), environment);
    t.deepEqual(dead.map((m) => m.id).sort(), [retried.messageId, killed.messageId].sort());
    t.deepEqual(dead.find((m) => m.id === killed.messageId)!.body, { n: 'killed' });
    t.deepEqual(dead.find((m) => m.id === killed.messageId)!.attributes, { TaskType: 'publish', Environment: environment });
    t.deepEqual(inEnv(await queue.peek(10_000), environment), []);
  });

  test(`${name}: a dead letter whose reason is 300 KB long still goes to the dead letters`, async (t) => {
    const { queue } = await open();
    const environment = uniqueEnv('long-reason');
    const published = await queue.publish({ taskType: 'publish', environment, body: { n: 'long' } });
    const consumer = await queue.consume({ ...base, taskTypes: ['publish'], environment }, async (): Promise<HandlerOutcome> => ({ action: 'dead', reason: '€'.repeat(100_000) }));
    await waitFor(async () => inEnv(await queue.deadLetters(10_000), environment).length === 1, 'the dead letter');
    await consumer.stop();
    t.deepEqual(inEnv(await queue.deadLetters(10_000), environment).map((m) => m.id), [published.messageId]);
  });

  test(`${name}: a handler that throws is retried with growing backoff, then dead-lettered`, async (t) => {
    const { queue } = await open();
    const environment = uniqueEnv('throw');
    const recovers = await queue.publish({ taskType: 'generation', environment, body: { n: 'recovers' } });
    const hopeless = await queue.publish({ taskType: 'generation', environment, body: { n: 'hopeless' } });
    const seen: Record<string, number[]> = {};
    const consumer = await queue.consume({ ...base, concurrency: 2, taskTypes: ['generation'], environment }, async (message) => {
      (seen[message.id] ??= []).push(Date.now());
      if (message.id === hopeless.messageId || message.attempt < 3) throw new Error('engine unreachable');
      return { action: 'ack' };
    });
    await waitFor(() => seen[recovers.messageId]?.length === 3, 'the third attempt');
    await waitFor(async () => inEnv(await queue.deadLetters(10_000), environment).length === 1, 'the hopeless message dead');
    await consumer.stop();
    const [first, second, third] = seen[recovers.messageId]!;
    t.true(second! - first! >= 40, `first backoff ${second! - first!} ms (50 expected)`);
    t.true(third! - second! >= 90, `second backoff ${third! - second!} ms (100 expected)`);
    t.is(seen[hopeless.messageId]!.length, 3);
    t.deepEqual(
      inEnv(await queue.deadLetters(10_000), environment).map((m) => m.id),
      [hopeless.messageId],
    );
    t.deepEqual(inEnv(await queue.peek(10_000), environment), []);
  });

  // Serial: timing claims need a database that other tests of this file are not hammering.
  test.serial(`${name}: a message whose consumer never finishes is delivered again when its visibility ends`, async (t) => {
    const { queue } = await open();
    const other = (await open(true)).queue;
    const environment = uniqueEnv('crash');
    await queue.publish({ taskType: 'generation', environment, body: { n: 1 } });
    let release!: () => void;
    const stuck = new Promise<void>((resolve) => (release = resolve));
    t.teardown(() => release());
    const crashed: { attempt: number; at: number }[] = [];
    const crashedConsumer = await queue.consume({ ...base, taskTypes: ['generation'], environment, visibilitySeconds: 0.5 }, async (message) => {
      crashed.push({ attempt: message.attempt, at: Date.now() });
      await stuck; // a process that died mid-job: never settles in time
      return { action: 'ack' };
    });
    await waitFor(() => crashed.length === 1, 'the first delivery');
    const survivor: { attempt: number; at: number }[] = [];
    const survivorConsumer = await other.consume({ ...base, taskTypes: ['generation'], environment }, async (message) => {
      survivor.push({ attempt: message.attempt, at: Date.now() });
      return { action: 'ack' };
    });
    await waitFor(() => survivor.length === 1, 'the redelivery');
    const waited = survivor[0]!.at - crashed[0]!.at;
    // Measured from handler start to handler start: the take itself may take a few ms under load.
    t.true(waited >= 400, `redelivered after ${waited} ms, before the 500 ms visibility timeout`);
    t.deepEqual(
      survivor.map((s) => s.attempt),
      [2],
    );
    release(); // the stale ack of the first delivery changes nothing
    await crashedConsumer.stop();
    await survivorConsumer.stop();
    t.deepEqual(
      crashed.map((c) => c.attempt),
      [1],
    );
    t.deepEqual(inEnv(await queue.peek(10_000), environment), []);
    t.deepEqual(inEnv(await queue.deadLetters(10_000), environment), []);
  });

  test.serial(`${name}: a message that outlives its visibility on every allowed delivery goes to the dead letters`, async (t) => {
    const { queue } = await open();
    const environment = uniqueEnv('poison');
    const { messageId } = await queue.publish({ taskType: 'generation', environment, body: { n: 'kills its worker' } });
    let release!: () => void;
    const stuck = new Promise<void>((resolve) => (release = resolve));
    t.teardown(() => release());
    const seen: number[] = [];
    const consumer = await queue.consume({ ...base, concurrency: 3, maxAttempts: 2, taskTypes: ['generation'], environment, visibilitySeconds: 0.2 }, async (message) => {
      seen.push(message.attempt);
      await stuck;
      return { action: 'ack' };
    });
    await waitFor(async () => inEnv(await queue.deadLetters(10_000), environment).length === 1, 'the dead letter');
    release();
    await consumer.stop();
    t.deepEqual(seen, [1, 2], 'no third delivery');
    t.deepEqual(
      inEnv(await queue.deadLetters(10_000), environment).map((m) => m.id),
      [messageId],
    );
    t.deepEqual(inEnv(await queue.peek(10_000), environment), []);
  });

  test.serial(`${name}: extendVisibility keeps a long job from being delivered again`, async (t) => {
    const { queue } = await open();
    const environment = uniqueEnv('extend');
    await queue.publish({ taskType: 'generation', environment, body: { n: 1 } });
    const seen: number[] = [];
    let extendedAt = 0;
    let acked = false;
    const consumer = await queue.consume({ ...base, concurrency: 2, taskTypes: ['generation'], environment, visibilitySeconds: 0.3 }, async (message) => {
      seen.push(message.attempt);
      await message.extendVisibility(2);
      extendedAt = Date.now();
      await sleep(800);
      acked = true;
      return { action: 'ack' };
    });
    await waitFor(() => acked, 'the ack');
    // The consumer still running past the extended visibility: had the job been treated as outliving its first
    // visibility (the message returned, or the ack dropped), the message would have come back by now.
    await sleep(Math.max(200, extendedAt + 2500 - Date.now()));
    await consumer.stop();
    t.deepEqual(seen, [1]);
    t.deepEqual(inEnv(await queue.peek(10_000), environment), []);
    t.deepEqual(inEnv(await queue.deadLetters(10_000), environment), []);
  });

  // Serial: whether both consumers get a share depends on neither being starved by other tests' load.
  test.serial(`${name}: two consumers over one storage handle 200 messages exactly once`, async (t) => {
    const { queue } = await open();
    const other = (await open(true)).queue;
    const environment = uniqueEnv('pair');
    const handled: number[][] = [[], []];
    const handler = (index: number) => async (message: DeliveredMessage) => {
      handled[index]!.push((message.body as { n: number }).n);
      // Slower than publishing (5-15 ms, four at a time: about half a second of work), so a backlog waits long enough
      // for the other consumer's poll (every 200 ms on the database queue) even when the publisher's own consumer is
      // woken on every publish.
      await sleep(5 + Math.random() * 10);
      return { action: 'ack' } as const;
    };
    const options = { ...base, concurrency: 4, taskTypes: ['generation' as const], environment, visibilitySeconds: 30 };
    const consumers = await Promise.all([queue.consume(options, handler(0)), other.consume(options, handler(1))]);
    // Both consumers wait for work before it arrives, so neither can drain the queue before the other has started.
    await sleep(100);
    for (let n = 0; n < 200; n += 1) await queue.publish({ taskType: 'generation', environment, body: { n } });
    await waitFor(() => handled[0]!.length + handled[1]!.length >= 200, '200 deliveries', 20_000);
    await sleep(200);
    await Promise.all(consumers.map((consumer) => consumer.stop()));
    const all = [...handled[0]!, ...handled[1]!];
    t.is(all.length, 200);
    t.is(new Set(all).size, 200);
    t.true(handled[0]!.length > 0 && handled[1]!.length > 0, `split ${handled[0]!.length}/${handled[1]!.length}`);
    t.deepEqual(inEnv(await queue.peek(10_000), environment), []);
  });

  if (capabilities.deduplicates) {
    test(`${name}: a second publish with the same messageId is a no-op`, async (t) => {
      const { queue } = await open();
      const environment = uniqueEnv('dedupe');
      const messageId = `outbox-${Math.random().toString(36).slice(2)}`;
      const first = await queue.publish({ taskType: 'generation', environment, body: { n: 1 }, messageId });
      const second = await queue.publish({ taskType: 'generation', environment, body: { n: 2 }, messageId });
      t.deepEqual([first.messageId, second.messageId], [messageId, messageId]);
      t.deepEqual(
        inEnv(await queue.peek(10_000), environment).map((m) => [m.id, m.body]),
        [[messageId, { n: 1 }]],
      );
    });
  } else {
    test(`${name}: a second publish with the same messageId is delivered again (at least once; consumers are idempotent)`, async (t) => {
      const { queue } = await open();
      const environment = uniqueEnv('redeliver');
      const messageId = `outbox-${Math.random().toString(36).slice(2)}`;
      await queue.publish({ taskType: 'generation', environment, body: { n: 1 }, messageId });
      await queue.publish({ taskType: 'generation', environment, body: { n: 2 }, messageId });
      const seen: { id: string; body: unknown }[] = [];
      const consumer = await queue.consume({ ...base, taskTypes: ['generation'], environment }, async (message) => {
        seen.push({ id: message.id, body: message.body });
        return { action: 'ack' };
      });
      await waitFor(() => seen.length === 2, 'both deliveries');
      await consumer.stop();
      t.deepEqual(seen, [{ id: messageId, body: { n: 1 } }, { id: messageId, body: { n: 2 } }]);
    });
  }

  test(`${name}: peek shows waiting messages without taking them`, async (t) => {
    const { queue } = await open();
    const environment = uniqueEnv('peek');
    const a = await queue.publish({ taskType: 'generation', environment, body: { n: 'a' } });
    const b = await queue.publish({ taskType: 'publish', environment, body: { n: 'b' } });
    const peeked = inEnv(await queue.peek(10_000), environment);
    t.deepEqual(peeked, [
      { id: a.messageId, body: { n: 'a' }, attributes: { TaskType: 'generation', Environment: environment } },
      { id: b.messageId, body: { n: 'b' }, attributes: { TaskType: 'publish', Environment: environment } },
    ]);
    t.is(inEnv(await queue.peek(10_000), environment).length, 2);
    const seen: number[] = [];
    const consumer = await queue.consume({ ...base, taskTypes: ['generation', 'publish'], environment }, async (message) => {
      seen.push(message.attempt);
      return { action: 'ack' };
    });
    await waitFor(() => seen.length === 2, 'both deliveries');
    await consumer.stop();
    // Two peeks: a broker that counts returns saw each message delivered twice already.
    t.deepEqual(seen, capabilities.peekReturnsCount ? [3, 3] : [1, 1]);
  });

  test(`${name}: stats count each task type's waiting messages and dead letters, and waiting goes back to 0`, async (t) => {
    const { queue } = await open();
    const environment = uniqueEnv('stats');
    const taskTypes = ['generation', 'publish'];
    /** The counts as this driver reports them: per task type, or all together. */
    const expected = (generation: [number, number], publish: [number, number]) =>
      capabilities.statsByTaskType === false
        ? [{ taskType: null, waiting: generation[0] + publish[0], deadLetters: generation[1] + publish[1] }]
        : [
            { taskType: 'generation', waiting: generation[0], deadLetters: generation[1] },
            { taskType: 'publish', waiting: publish[0], deadLetters: publish[1] },
          ];
    const counts = async () => (await queue.stats(environment, taskTypes)).map(({ taskType, waiting, deadLetters }) => ({ taskType, waiting, deadLetters }));
    const settle = async (want: unknown) => {
      await waitFor(async () => JSON.stringify(await counts()) === JSON.stringify(want), 'the expected stats').catch(() => undefined);
      t.deepEqual(await counts(), want);
    };
    await settle(expected([0, 0], [0, 0]));
    await queue.publish({ taskType: 'generation', environment, body: { n: 1 } });
    await queue.publish({ taskType: 'generation', environment, body: { n: 2 } });
    await queue.publish({ taskType: 'publish', environment, body: { n: 3 } });
    await settle(expected([2, 0], [1, 0]));
    if (capabilities.statsOldestAge !== false) {
      await sleep(1100);
      const ages = (await queue.stats(environment, taskTypes)).map((entry) => entry.oldestWaitingSeconds!);
      t.true(ages.every((age) => age >= 1 && age < 60), `ages ${ages.join(', ')}`);
    } else {
      t.true((await queue.stats(environment, taskTypes)).every((entry) => entry.oldestWaitingSeconds === undefined));
    }
    const consumer = await queue.consume({ ...base, taskTypes, environment }, async (message): Promise<HandlerOutcome> =>
      message.taskType === 'publish' ? { action: 'dead', reason: 'for the stats' } : { action: 'ack' },
    );
    await waitFor(async () => inEnv(await queue.deadLetters(10_000), environment).length === 1, 'the dead letter');
    await consumer.stop();
    await settle(expected([0, 0], [0, 1]));
    if (capabilities.statsOldestAge !== false) t.deepEqual((await queue.stats(environment, taskTypes)).map((entry) => entry.oldestWaitingSeconds), [0, 0]);
  });

  test(`${name}: stats leave out a message a consumer holds`, async (t) => {
    const { queue } = await open();
    const environment = uniqueEnv('stats-held');
    const waitingOf = async () => (await queue.stats(environment, ['generation'])).map((entry) => entry.waiting);
    await queue.publish({ taskType: 'generation', environment, body: { n: 1 } });
    await queue.publish({ taskType: 'generation', environment, body: { n: 2 } });
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let handled = 0;
    const consumer = await queue.consume({ ...base, taskTypes: ['generation'], environment }, async () => {
      if (handled === 0) await gate;
      handled += 1;
      return { action: 'ack' };
    });
    t.teardown(() => release());
    await waitFor(async () => (await waitingOf())[0] === 1, 'one message taken').catch(() => undefined);
    t.deepEqual(await waitingOf(), [1], 'the held message is not waiting');
    release();
    await waitFor(() => handled === 2, 'both handled');
    await consumer.stop();
    await waitFor(async () => (await waitingOf())[0] === 0, 'none waiting').catch(() => undefined);
    t.deepEqual(await waitingOf(), [0]);
  });

  test(`${name}: stop() waits for handlers in flight and then takes nothing more`, async (t) => {
    const { queue } = await open();
    const environment = uniqueEnv('stop');
    await queue.publish({ taskType: 'generation', environment, body: { n: 1 } });
    let started = false;
    let finished = false;
    const consumer = await queue.consume({ ...base, taskTypes: ['generation'], environment }, async () => {
      started = true;
      await sleep(300);
      finished = true;
      return { action: 'ack' };
    });
    await waitFor(() => started, 'the delivery');
    await consumer.stop();
    t.true(finished, 'stop() resolved only after the handler finished');
    t.deepEqual(inEnv(await queue.peek(10_000), environment), [], 'and its outcome was applied');
    await queue.publish({ taskType: 'generation', environment, body: { n: 2 } });
    await sleep(200);
    t.is(inEnv(await queue.peek(10_000), environment).length, 1);
  });

  test(`${name}: a message published while its consumer stops (a handler still in flight) is left for the next consumer`, async (t) => {
    const { queue } = await open();
    const environment = uniqueEnv('stopping');
    const first = await queue.publish({ taskType: 'generation', environment, body: { n: 'in flight' } });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    t.teardown(() => release());
    const handled: string[] = [];
    const consumer = await queue.consume({ ...base, concurrency: 2, taskTypes: ['generation'], environment }, async (message) => {
      handled.push(message.id);
      if (message.id === first.messageId) await gate;
      return { action: 'ack' };
    });
    await waitFor(() => handled.length === 1, 'the first delivery');
    const stopping = consumer.stop();
    const late = await queue.publish({ taskType: 'generation', environment, body: { n: 'late' } });
    // A free slot and a receive still waiting (long polling, a prefetch): long enough for the late message to reach it.
    await sleep(1500);
    release();
    await stopping;
    t.deepEqual(handled, [first.messageId], 'the stopping consumer did not run the late message');
    const next: { id: string; attempt: number }[] = [];
    const successor = await queue.consume({ ...base, taskTypes: ['generation'], environment }, async (message) => {
      next.push({ id: message.id, attempt: message.attempt });
      return { action: 'ack' };
    });
    await waitFor(() => next.length === 1, 'the late message, for the next consumer', 10_000);
    await successor.stop();
    t.is(next[0]!.id, late.messageId);
    // Handed back unchanged; a broker that counts a receive handed back (SQS) counts that one.
    t.true(next[0]!.attempt <= (capabilities.peekReturnsCount ? 2 : 1), `attempt ${next[0]!.attempt}`);
    t.deepEqual(inEnv(await queue.peek(10_000), environment), []);
  });

  test(`${name}: a consumer runs as many handlers at once as its concurrency, and no more`, async (t) => {
    const { queue } = await open();
    const environment = uniqueEnv('concurrency');
    for (let n = 0; n < 6; n += 1) await queue.publish({ taskType: 'generation', environment, body: { n } });
    let running = 0;
    let most = 0;
    let handled = 0;
    const consumer = await queue.consume({ ...base, concurrency: 2, taskTypes: ['generation'], environment, visibilitySeconds: 30 }, async () => {
      running += 1;
      most = Math.max(most, running);
      // Held until a second handler runs beside it (or long enough for a third to start if the limit is not kept).
      await waitFor(() => running >= 2, 'a second handler', 5000).catch(() => undefined);
      await sleep(100);
      running -= 1;
      handled += 1;
      return { action: 'ack' };
    });
    await waitFor(() => handled === 6, 'six messages handled', 30_000);
    await consumer.stop();
    t.is(most, 2);
    t.deepEqual(inEnv(await queue.peek(10_000), environment), []);
  });

  // Serial: the claims are about what happens when a visibility runs out.
  test.serial(`${name}: a handler whose visibility ran out keeps its slot until it returns`, async (t) => {
    const { queue } = await open();
    const environment = uniqueEnv('stale-slot');
    const stalled = await queue.publish({ taskType: 'generation', environment, body: { n: 'stalls' } });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    t.teardown(() => release());
    const started: { id: string; attempt: number }[] = [];
    const consumer = await queue.consume({ ...base, concurrency: 1, taskTypes: ['generation'], environment, visibilitySeconds: 0.5 }, async (message) => {
      started.push({ id: message.id, attempt: message.attempt });
      if (message.id === stalled.messageId && message.attempt === 1) await gate;
      return { action: 'ack' };
    });
    await waitFor(() => started.length === 1, 'the first delivery');
    const other = await queue.publish({ taskType: 'generation', environment, body: { n: 'waits' } });
    await sleep(2000); // the stalled delivery's visibility (1 s on SQS) ran out long ago
    t.deepEqual(started, [{ id: stalled.messageId, attempt: 1 }], 'nothing else started beside the stalled handler');
    release();
    // Then the other message, and the stalled one again where its late ack no longer counts (brokers; the database
    // and memory queues still take it when no other delivery took the message meanwhile).
    await waitFor(() => started.some((s) => s.id === other.messageId), 'the other message after the release', 10_000);
    await waitFor(async () => inEnv(await queue.peek(10_000), environment).length === 0, 'nothing waiting', 10_000);
    await consumer.stop();
    t.deepEqual(inEnv(await queue.peek(10_000), environment), []);
    t.deepEqual(inEnv(await queue.deadLetters(10_000), environment), []);
  });

  test.serial(`${name}: the late outcome of a delivery whose visibility ran out changes nothing for the consumer that holds it now`, async (t) => {
    const { queue } = await open();
    const other = (await open(true)).queue;
    const environment = uniqueEnv('late');
    const { messageId } = await queue.publish({ taskType: 'generation', environment, body: { n: 1 } });
    let releaseLate!: () => void;
    const late = new Promise<void>((resolve) => (releaseLate = resolve));
    let releaseHolder!: () => void;
    const holding = new Promise<void>((resolve) => (releaseHolder = resolve));
    t.teardown(() => {
      releaseLate();
      releaseHolder();
    });
    const first: number[] = [];
    let lateReturned = false;
    const slow = await queue.consume({ ...base, taskTypes: ['generation'], environment, visibilitySeconds: 0.5 }, async (message): Promise<HandlerOutcome> => {
      first.push(message.attempt);
      await late;
      lateReturned = true;
      return { action: 'dead', reason: 'a stale verdict' };
    });
    await waitFor(() => first.length === 1, 'the first delivery');
    const second: number[] = [];
    const holder = await other.consume({ ...base, taskTypes: ['generation'], environment, visibilitySeconds: 30 }, async (message) => {
      second.push(message.attempt);
      await holding;
      return { action: 'ack' };
    });
    await waitFor(() => second.length === 1, 'the redelivery to the other consumer', 10_000);
    releaseLate(); // the first handler returns its (dead) verdict now, while the other consumer holds the message
    await waitFor(() => lateReturned, 'the late outcome');
    await sleep(500);
    t.deepEqual(inEnv(await queue.deadLetters(10_000), environment), [], 'not dead-lettered by the late outcome');
    releaseHolder();
    await slow.stop();
    await holder.stop();
    t.deepEqual(first, [1]);
    t.deepEqual(second, [2]);
    t.deepEqual(inEnv(await queue.deadLetters(10_000), environment).map((m) => m.id), []);
    t.deepEqual(inEnv(await queue.peek(10_000), environment), [], `${messageId} acknowledged by its holder`);
  });

  if (capabilities.deduplicates) {
    test(`${name}: an acknowledged message stays a tombstone: publishing its messageId again delivers nothing`, async (t) => {
      const { queue } = await open();
      const environment = uniqueEnv('tombstone');
      const messageId = `outbox-${Math.random().toString(36).slice(2)}`;
      await queue.publish({ taskType: 'generation', environment, body: { n: 1 }, messageId });
      const seen: unknown[] = [];
      const consumer = await queue.consume({ ...base, taskTypes: ['generation'], environment }, async (message) => {
        seen.push(message.body);
        return { action: 'ack' };
      });
      await waitFor(() => seen.length === 1, 'the first delivery');
      await sleep(100); // the ack is written
      // A relay that crashed after publishing, before marking its outbox entry, publishes the same id again.
      t.deepEqual(await queue.publish({ taskType: 'generation', environment, body: { n: 2 }, messageId }), { messageId });
      await sleep(400);
      await consumer.stop();
      t.deepEqual(seen, [{ n: 1 }]);
      t.deepEqual(inEnv(await queue.peek(10_000), environment), []);
      t.deepEqual(inEnv(await queue.deadLetters(10_000), environment), []);
    });
  }

  test(`${name}: onDeadLetter ends a message the handler gave up on before it goes dead`, async (t) => {
    const { queue } = await open();
    const environment = uniqueEnv('ondead');
    const { messageId } = await queue.publish({ taskType: 'generation', environment, body: { n: 'hopeless' } });
    const ended: { id: string; attempt: number; body: unknown; reason: string; deadAlready: boolean }[] = [];
    const consumer = await queue.consume(
      {
        ...base,
        taskTypes: ['generation'],
        environment,
        onDeadLetter: async (message, reason) => {
          const deadAlready = inEnv(await queue.deadLetters(10_000), environment).length > 0;
          ended.push({ id: message.id, attempt: message.attempt, body: message.body, reason, deadAlready });
        },
      },
      async () => ({ action: 'dead', reason: 'bad platform' }),
    );
    await waitFor(async () => inEnv(await queue.deadLetters(10_000), environment).length === 1, 'the dead letter');
    await consumer.stop();
    t.deepEqual(ended, [{ id: messageId, attempt: 1, body: { n: 'hopeless' }, reason: 'bad platform', deadAlready: false }]);
  });

  test(`${name}: onDeadLetter is called only for messages that go dead, not for those acknowledged or retried`, async (t) => {
    const { queue } = await open();
    const environment = uniqueEnv('ondead-only');
    const ended: string[] = [];
    const handled: string[] = [];
    const consumer = await queue.consume(
      { ...base, taskTypes: ['generation'], environment, onDeadLetter: async (message) => void ended.push((message.body as { name: string }).name) },
      async (message): Promise<HandlerOutcome> => {
        const { name } = message.body as { name: string };
        handled.push(`${name}#${message.attempt}`);
        if (name === 'dead') return { action: 'dead', reason: 'given up' };
        if (name === 'retried' && message.attempt === 1) return { action: 'retry', delaySeconds: 0 };
        return { action: 'ack' };
      },
    );
    for (const name of ['acked', 'retried', 'dead']) await queue.publish({ taskType: 'generation', environment, body: { name } });
    await waitFor(() => handled.length === 4 && ended.length === 1, 'four deliveries and one dead letter');
    await sleep(200);
    await consumer.stop();
    t.deepEqual(handled.sort(), ['acked#1', 'dead#1', 'retried#1', 'retried#2']);
    t.deepEqual(ended, ['dead']);
  });

  test.serial(`${name}: onDeadLetter also ends a message delivered maxAttempts times without being settled`, async (t) => {
    const { queue } = await open();
    const environment = uniqueEnv('ondead-expired');
    const { messageId } = await queue.publish({ taskType: 'generation', environment, body: { n: 'kills its worker' } });
    let release!: () => void;
    const stuck = new Promise<void>((resolve) => (release = resolve));
    t.teardown(() => release());
    const seen: number[] = [];
    const ended: { id: string; attempt: number; reason: string; deadAlready: boolean }[] = [];
    const consumer = await queue.consume(
      {
        ...base,
        concurrency: 3,
        maxAttempts: 2,
        taskTypes: ['generation'],
        environment,
        visibilitySeconds: 0.2,
        onDeadLetter: async (message, reason) => {
          const deadAlready = inEnv(await queue.deadLetters(10_000), environment).length > 0;
          ended.push({ id: message.id, attempt: message.attempt, reason, deadAlready });
        },
      },
      async (message) => {
        seen.push(message.attempt);
        await stuck;
        return { action: 'ack' };
      },
    );
    await waitFor(async () => inEnv(await queue.deadLetters(10_000), environment).length === 1, 'the dead letter');
    release();
    await consumer.stop();
    t.deepEqual(seen, [1, 2], 'never handed to the handler a third time');
    t.is(ended.length, 1);
    // The last allowed attempt, not the count of the delivery that only ends it.
    t.like(ended[0], { id: messageId, attempt: 2, deadAlready: false });
    t.true(ended[0]!.reason.length > 0);
    t.deepEqual(inEnv(await queue.peek(10_000), environment), []);
  });

  test.serial(`${name}: a message ended for its attempts, whose onDeadLetter outlasts the visibility, is dead-lettered once`, async (t) => {
    const { queue } = await open();
    const environment = uniqueEnv('ondead-expired-slow');
    const { messageId } = await queue.publish({ taskType: 'generation', environment, body: { n: 'kills its worker' } });
    let releaseHandler!: () => void;
    const stuck = new Promise<void>((resolve) => (releaseHandler = resolve));
    let releaseDeadLetter!: () => void;
    const slow = new Promise<void>((resolve) => (releaseDeadLetter = resolve));
    t.teardown(() => {
      releaseHandler();
      releaseDeadLetter();
    });
    let calls = 0;
    const consumer = await queue.consume(
      {
        ...base,
        concurrency: 3,
        maxAttempts: 1,
        taskTypes: ['generation'],
        environment,
        visibilitySeconds: 0.2,
        // The first ending of the message is held past its visibility; any later one is quick.
        onDeadLetter: async () => {
          calls += 1;
          if (calls === 1) await slow;
        },
      },
      async () => {
        await stuck; // the worker never finishes: the message comes back past maxAttempts, only to be ended
        return { action: 'ack' };
      },
    );
    await waitFor(() => calls >= 1, 'the first onDeadLetter');
    // Where the queue hands the message out again meanwhile, a later delivery ends it (a second onDeadLetter).
    await waitFor(() => calls >= 2, 'a second onDeadLetter', 6000).catch(() => undefined);
    releaseDeadLetter();
    await waitFor(async () => inEnv(await queue.deadLetters(10_000), environment).length >= 1, 'the dead letter');
    await sleep(1500); // the first onDeadLetter has returned and its delivery has settled by now
    releaseHandler();
    await consumer.stop();
    t.deepEqual(inEnv(await queue.deadLetters(10_000), environment).map((m) => m.id), [messageId], 'one dead letter, not one per delivery that ended it');
    t.deepEqual(inEnv(await queue.peek(10_000), environment), []);
  });

  test.serial(`${name}: an onDeadLetter that outlasts the visibility: a delivery that took the message meanwhile decides its fate`, async (t) => {
    const { queue } = await open();
    const environment = uniqueEnv('ondead-slow');
    const { messageId } = await queue.publish({ taskType: 'generation', environment, body: { n: 1 } });
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    t.teardown(() => release());
    const attempts: number[] = [];
    const consumer = await queue.consume(
      {
        ...base,
        concurrency: 2,
        taskTypes: ['generation'],
        environment,
        visibilitySeconds: 1,
        // The first dead-lettering is held past the visibility.
        onDeadLetter: async () => slow,
      },
      // The first delivery gives up; a later one (the message handed out again meanwhile) succeeds.
      async (message) => {
        attempts.push(message.attempt);
        return message.attempt === 1 ? { action: 'dead', reason: 'gave up' } : { action: 'ack' };
      },
    );
    // Past the visibility: where the queue hands the message out again (the database, SQS), the second slot has it and
    // acknowledges it; where the channel holds it until settled (RabbitMQ), it waits for the first (6 s tell them apart).
    await waitFor(() => attempts.includes(2), 'a second delivery', 6000).catch(() => undefined);
    release();
    await sleep(1500); // the first delivery's onDeadLetter has returned and its settling is done by now
    await consumer.stop();
    const dead = inEnv(await queue.deadLetters(10_000), environment).map((m) => m.id);
    if (attempts.includes(2)) t.deepEqual(dead, [], 'acknowledged by the delivery that held it: the lost one does not dead-letter it');
    else t.deepEqual(dead, [messageId], 'held by the first delivery throughout: dead-lettered once');
    t.deepEqual(inEnv(await queue.peek(10_000), environment), []);
  });

  test.serial(`${name}: when onDeadLetter throws, the message is not dead-lettered and comes back`, async (t) => {
    const { queue } = await open();
    const environment = uniqueEnv('ondead-throws');
    const { messageId } = await queue.publish({ taskType: 'generation', environment, body: { n: 1 } });
    const attempts: number[] = [];
    let calls = 0;
    let deadAfterFailure = null as number | null;
    const consumer = await queue.consume(
      {
        ...base,
        taskTypes: ['generation'],
        environment,
        // Where the message is handed back at once, a visibility far longer than the wait below: only that brings it back.
        visibilitySeconds: capabilities.handsBackFailedDeadLetter ? 30 : 0.3,
        onDeadLetter: async () => {
          calls += 1;
          if (calls === 1) throw new Error('the job could not be failed right now');
        },
      },
      async (message) => {
        attempts.push(message.attempt);
        if (message.attempt === 2) deadAfterFailure = inEnv(await queue.deadLetters(10_000), environment).length;
        return { action: 'dead', reason: 'gave up' };
      },
    );
    await waitFor(async () => inEnv(await queue.deadLetters(10_000), environment).length === 1, 'the dead letter', 10_000);
    await consumer.stop();
    t.deepEqual(attempts, [1, 2], 'delivered again after the failed dead-lettering');
    t.is(deadAfterFailure, 0, 'not dead after the first onDeadLetter threw');
    t.is(calls, 2);
    t.deepEqual(inEnv(await queue.deadLetters(10_000), environment).map((m) => m.id), [messageId]);
  });

  test.serial(`${name}: extendVisibility throws once the delivery lost its message to another`, async (t) => {
    const { queue } = await open();
    const other = (await open(true)).queue;
    const environment = uniqueEnv('lost');
    await queue.publish({ taskType: 'generation', environment, body: { n: 1 } });
    let retaken!: () => void;
    const taken = new Promise<void>((resolve) => (retaken = resolve));
    t.teardown(() => retaken());
    let extended = null as 'resolved' | 'rejected' | null;
    let stillHeld = null as 'resolved' | 'rejected' | null;
    const slow = await queue.consume({ ...base, taskTypes: ['generation'], environment, visibilitySeconds: 0.3 }, async (message) => {
      stillHeld = await message.extendVisibility(0.3).then(
        () => 'resolved' as const,
        () => 'rejected' as const,
      );
      await taken; // stalled past its visibility: the message went to the other consumer meanwhile
      extended = await message.extendVisibility(5).then(
        () => 'resolved' as const,
        () => 'rejected' as const,
      );
      return { action: 'ack' };
    });
    await waitFor(() => stillHeld !== null, 'the first delivery');
    const seen: number[] = [];
    const survivor = await other.consume({ ...base, taskTypes: ['generation'], environment }, async (message) => {
      seen.push(message.attempt);
      retaken();
      return { action: 'ack' };
    });
    await waitFor(() => extended !== null, 'the late extendVisibility');
    await slow.stop();
    await survivor.stop();
    t.is(stillHeld, 'resolved', 'while held, extending works');
    t.is(extended, 'rejected');
    t.deepEqual(seen, [2]);
    t.deepEqual(inEnv(await queue.peek(10_000), environment), []);
  });

  test(`${name}: a dead letter shows its reason; redrive delivers it again from attempt 1, discard drops it, each once`, async (t) => {
    const { queue } = await open();
    const environment = uniqueEnv('redrive');
    const again = await queue.publish({ taskType: 'generation', environment, body: { n: 'again' } });
    const dropped = await queue.publish({ taskType: 'generation', environment, body: { n: 'dropped' } });
    const seen: { id: string; attempt: number }[] = [];
    let redriven = false;
    const consumer = await queue.consume({ ...base, taskTypes: ['generation'], environment }, async (message): Promise<HandlerOutcome> => {
      seen.push({ id: message.id, attempt: message.attempt });
      return redriven ? { action: 'ack' } : { action: 'dead', reason: `engine gone ${(message.body as { n: string }).n}` };
    });
    await waitFor(async () => inEnv(await queue.deadLetters(10_000), environment).length === 2, 'two dead letters');
    const dead = inEnv(await queue.deadLetters(10_000), environment);
    t.deepEqual(dead.map((m) => [m.id, m.reason]).sort(), [[again.messageId, 'engine gone again'], [dropped.messageId, 'engine gone dropped']].sort());

    t.false(await queue.redrive('no-such-message'), 'an unknown id redrives nothing');
    t.false(await queue.discard('no-such-message'), 'an unknown id discards nothing');
    redriven = true;
    t.true(await queue.redrive(again.messageId));
    t.false(await queue.redrive(again.messageId), 'a second redrive finds no dead letter');
    await waitFor(() => seen.length === 3, 'the redriven delivery');
    t.true(await queue.discard(dropped.messageId));
    t.false(await queue.discard(dropped.messageId), 'a second discard finds nothing');
    t.false(await queue.redrive(dropped.messageId), 'a discarded message cannot be redriven');
    await sleep(300);
    await consumer.stop();
    t.deepEqual(seen[2], { id: again.messageId, attempt: 1 });
    t.is(seen.length, 3, 'the discarded message never comes back');
    t.deepEqual(inEnv(await queue.deadLetters(10_000), environment), []);
    t.deepEqual(inEnv(await queue.peek(10_000), environment), []);
  });
}
