/** The events that end a job: exactly one of them per finished job. */
export const TERMINAL_EVENT_TYPES: readonly string[] = ['job.completed', 'job.failed', 'job.cancelled'];
