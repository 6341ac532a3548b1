/**
 * Coalesces reads asked for while earlier ones are in flight into one statement per batch: under load, one
 * driver call serves many requests (each call through a driver costs far more CPU than the row it reads).
 *
 * A read never joins a statement already sent: it waits for the next one, which starts after it was asked
 * for, so it sees every write committed before the call, exactly as a statement of its own would. The
 * first read of a quiet moment goes out at once.
 */
export class ReadBatcher<K, V> {
  private queue: { key: K; resolve(value: V): void; reject(error: unknown): void }[] = [];
  private inFlight = 0;

  constructor(
    private readonly run: (keys: K[]) => Promise<V[]>,
    private readonly options: { maxBatch: number; concurrency: number },
  ) {}

  load(key: K): Promise<V> {
    return new Promise<V>((resolve, reject) => {
      this.queue.push({ key, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.options.concurrency && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.options.maxBatch);
      this.inFlight += 1;
      const settle = (): void => {
        this.inFlight -= 1;
        this.pump();
      };
      this.run(batch.map((entry) => entry.key)).then(
        (values) => {
          settle();
          batch.forEach((entry, index) => entry.resolve(values[index]!));
        },
        (error: unknown) => {
          settle();
          for (const entry of batch) entry.reject(error);
        },
      );
    }
  }
}
