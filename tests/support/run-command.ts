import { spawn } from 'node:child_process';
import path from 'node:path';

export const PROJECT_ROOT = path.resolve(import.meta.dirname, '../..');
export const PROJECT_BIN = path.join(PROJECT_ROOT, 'node_modules/.bin');

export interface CommandResult {
  /** null when it had to be killed at the timeout. */
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/**
 * Runs a command to completion in the checkout with exactly the given variables, plus PATH led by the
 * project's own `node_modules/.bin` (so tsx and npm scripts run on the project's Node 22) and HOME.
 */
export function runCommand(command: string, args: string[], env: Record<string, string>, options: { timeoutMs?: number; cwd?: string } = {}): Promise<CommandResult> {
  const { timeoutMs = 60_000, cwd = PROJECT_ROOT } = options;
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, {
      cwd,
      env: { PATH: `${PROJECT_BIN}:${process.env.PATH}`, HOME: process.env.HOME ?? '/tmp', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: performance.now() - started });
    });
  });
}
