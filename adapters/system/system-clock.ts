import { randomUUID } from 'node:crypto';
import type { Clock } from '../../core/ports/clock.port.ts';
import type { IdGenerator } from '../../core/ports/id-generator.port.ts';

export class SystemClock implements Clock {
  now(): Date {
    return new Date();
  }
}

export class RandomIdGenerator implements IdGenerator {
  newId(): string {
    return randomUUID();
  }
}
