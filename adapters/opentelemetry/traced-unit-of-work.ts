import { context } from '@opentelemetry/api';
import type { OutboxEntry, OutboxWriter } from '../../core/ports/outbox.port.ts';
import type { Transaction, UnitOfWork } from '../../core/ports/unit-of-work.port.ts';
import { carrierOf } from './trace-context.ts';

/**
 * A UnitOfWork whose transactions stamp every outbox message with the trace context of the caller (the HTTP
 * request's span), so the outbox row, and the queue message the relay makes of it, carry the trace (ADR 031).
 * The context is the one `run` was called in: a pooled connection's callbacks must not decide it.
 */
export class TracedUnitOfWork implements UnitOfWork {
  constructor(private readonly inner: UnitOfWork) {}

  run<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    const caller = context.active();
    return this.inner.run((tx) => context.with(caller, () => work(stampingOutbox(tx, caller))));
  }
}

function stampingOutbox(tx: Transaction, caller: ReturnType<typeof context.active>): Transaction {
  const outbox: OutboxWriter = {
    add: (entry: OutboxEntry) => {
      const trace = entry.message.trace ?? carrierOf(caller);
      return tx.outbox.add(trace ? { ...entry, message: { ...entry.message, trace } } : entry);
    },
  };
  return new Proxy(tx, {
    get(target, property) {
      if (property === 'outbox') return outbox;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
