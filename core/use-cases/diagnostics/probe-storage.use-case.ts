import type { Clock } from '../../ports/clock.port.ts';
import type { IdGenerator } from '../../ports/id-generator.port.ts';
import type { ObjectStorage } from '../../ports/object-storage.port.ts';

export interface ProbeStorageDeps {
  storage: ObjectStorage;
  ids: IdGenerator;
  clock: Clock;
}

/**
 * A put/get/delete round trip of a small object: proves the storage is reachable, writable and returns
 * what it was given. Throws when it is not (the health check and the diagnostics route report the cause).
 */
export class ProbeStorage {
  constructor(private readonly deps: ProbeStorageDeps) {}

  async execute(): Promise<{ latencyMs: number }> {
    const { storage, ids, clock } = this.deps;
    const started = clock.now().getTime();
    await storage.check();
    const key = `health/probe-${ids.newId()}.txt`;
    const body = Buffer.from(`probe ${key}`);
    await storage.put(key, body, { contentType: 'text/plain', contentLength: body.length });
    try {
      const read = await storage.get(key);
      if (!read) throw new Error('storage lost the probe object');
      const chunks: Buffer[] = [];
      for await (const chunk of read.body) chunks.push(chunk as Buffer);
      if (!Buffer.concat(chunks).equals(body)) throw new Error('storage returned different bytes for the probe object');
    } finally {
      await storage.delete(key);
    }
    if ((await storage.head(key)) !== null) throw new Error('storage kept the probe object after deleting it');
    return { latencyMs: clock.now().getTime() - started };
  }
}
