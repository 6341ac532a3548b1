import type { LogFields, Logger } from '../../core/ports/logger.port.ts';

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const;
type Level = keyof typeof LEVELS;

// Never let a secret reach the log, whatever a caller passes in.
const SECRET_KEYS = /pass(word)?|secret|token|authorization|cookie|api[-_]?key/i;

function scrub(fields: LogFields): LogFields {
  const clean: LogFields = {};
  for (const [key, value] of Object.entries(fields)) {
    if (SECRET_KEYS.test(key)) clean[key] = '[redacted]';
    else if (value instanceof Error) clean[key] = { name: value.name, message: value.message, stack: value.stack };
    else clean[key] = value;
  }
  return clean;
}

/** One JSON object per line on stdout (stderr for warnings and errors). */
export class JsonLogger implements Logger {
  constructor(
    private readonly level: Level = 'info',
    private readonly base: LogFields = {},
    private readonly write: (line: string, level: Level) => void = (line, level) =>
      (LEVELS[level] >= LEVELS.warn ? process.stderr : process.stdout).write(line + '\n'),
  ) {}

  private log(level: Level, message: string, fields?: LogFields): void {
    if (LEVELS[level] < LEVELS[this.level]) return;
    this.write(JSON.stringify({ time: new Date().toISOString(), level, msg: message, ...this.base, ...(fields ? scrub(fields) : {}) }), level);
  }

  debug(message: string, fields?: LogFields): void {
    this.log('debug', message, fields);
  }
  info(message: string, fields?: LogFields): void {
    this.log('info', message, fields);
  }
  warn(message: string, fields?: LogFields): void {
    this.log('warn', message, fields);
  }
  error(message: string, fields?: LogFields): void {
    this.log('error', message, fields);
  }
  child(fields: LogFields): Logger {
    return new JsonLogger(this.level, { ...this.base, ...scrub(fields) }, this.write);
  }
}
