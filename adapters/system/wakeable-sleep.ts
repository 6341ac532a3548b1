/**
 * A loop's idle wait that `wake()` cuts short (the queue consumers' poll interval and back-off; stop() wakes them).
 * A wake-up that comes while nothing sleeps is kept: the next sleep returns at once, so it is never lost.
 */
export class WakeableSleep {
  private cut: (() => void) | null = null;
  private woken = false;

  sleep(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.cut = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.cut = done;
    });
  }

  wake(): void {
    if (this.cut) this.cut();
    else this.woken = true;
  }
}
