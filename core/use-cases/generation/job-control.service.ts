import { JOB_CONTROL_CHANNEL, type EventBus } from '../../ports/user-events.port.ts';

/**
 * Cancel requests travel over the event bus, because the job may run in another process.
 * Each worker keeps an abort hook per running job.
 */
export class JobControl {
  private readonly running = new Map<string, () => void>();
  private unsubscribe: (() => Promise<void>) | null = null;

  constructor(private readonly bus: EventBus) {}

  async start(): Promise<void> {
    this.unsubscribe = await this.bus.subscribe(JOB_CONTROL_CHANNEL, (payload) => {
      const message = payload as { type?: string; jobId?: string };
      if (message?.type === 'cancel' && typeof message.jobId === 'string') this.running.get(message.jobId)?.();
    });
  }

  async stop(): Promise<void> {
    await this.unsubscribe?.();
    this.unsubscribe = null;
  }

  requestCancel(jobId: string): Promise<void> {
    return this.bus.publish(JOB_CONTROL_CHANNEL, { type: 'cancel', jobId });
  }

  onCancel(jobId: string, abort: () => void): () => void {
    this.running.set(jobId, abort);
    return () => {
      if (this.running.get(jobId) === abort) this.running.delete(jobId);
    };
  }
}
