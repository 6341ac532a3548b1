import './threadpool.ts';
import 'reflect-metadata';
import { loadConfig } from './config.ts';

const loaded = loadConfig(process.env);
if (!loaded.ok) {
  process.stderr.write(`Configuration is invalid:\n${loaded.problems.map((problem) => `  - ${problem}`).join('\n')}\n`);
  process.exit(78);
}

// Imported only once the configuration is valid: loading every adapter takes seconds, and a bad
// configuration should be reported at once.
const { buildApplication } = await import('./app.ts');
let built;
try {
  built = buildApplication(loaded.config);
} catch (error) {
  // A driver this build does not have, for instance: say so plainly, no stack trace.
  process.stderr.write(`Start-up failed: ${(error as Error).message}\n`);
  process.exit(78);
}
const app = built;
let stopping = false;
const shutdown = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  app.logger.info('shutting down', { signal });
  const force = setTimeout(() => process.exit(1), 20_000);
  force.unref();
  try {
    await app.stop();
    process.exit(0);
  } catch (error) {
    app.logger.error('shutdown failed', { error });
    process.exit(1);
  }
};
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));

try {
  await app.start();
} catch (error) {
  app.logger.error('start-up failed', { error });
  await app.stop().catch(() => undefined);
  process.exit(1);
}
