import type { Logger } from '../../core/ports/logger.port.ts';

/** The timers this process has armed (a timer keeps a Node process alive until it fires). */
export const activeTimers = () => process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length;

/** A logger that keeps its warnings and errors as one line each (`warn <message> <fields as JSON>`). */
export function capturingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const logger: Logger = {
    debug() {},
    info() {},
    warn: (message, fields) => void lines.push(`warn ${message} ${JSON.stringify(fields ?? {})}`),
    error: (message, fields) => void lines.push(`error ${message} ${JSON.stringify(fields ?? {})}`),
    child: () => logger,
  };
  return { logger, lines };
}
