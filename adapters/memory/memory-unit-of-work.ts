import type { UnitOfWork } from '../../core/ports/unit-of-work.port.ts';

/** In memory there is nothing to roll back to: work runs as is. */
export class MemoryUnitOfWork implements UnitOfWork {
  run<T>(work: () => Promise<T>): Promise<T> {
    return work();
  }
}
