/** Runs the repository calls made inside `work` in one transaction: all of them commit or none. */
export interface UnitOfWork {
  run<T>(work: () => Promise<T>): Promise<T>;
}
