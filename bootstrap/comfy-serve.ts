/**
 * `npm run comfy-serve`: the builtin engine as its own process that looks like a ComfyUI server
 * (HTTP + WebSocket protocol of ComfyUI 0.3.64), for a comfyui engine adapter to talk to.
 *
 * Flags follow ComfyUI's main.py: --listen [IP] (bare --listen means all interfaces), --port,
 * --max-upload-size (MB), --input-directory, --output-directory, --temp-directory. For standing in for a GPU fleet
 * (ADR 044): --checkpoints (model files a CheckpointLoaderSimple offers), --model-load-ms (paid per model switch)
 * and --node-ms (paid per executed node).
 * Environment: COMFY_HOST, COMFY_PORT, COMFY_DATA_DIR (default ./data/comfy, holding input/,
 * output/ and temp/), FFMPEG_PATH. Flags win over the environment.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { BuiltinRuntime } from '../adapters/builtin-engine/builtin-runtime.ts';
import { checkpointLoaderNode } from '../adapters/builtin-engine/nodes/model-nodes.ts';
import { createComfyProtocolServer } from '../adapters/comfyui-protocol-server/comfy-protocol-server.ts';

const log = (level: string, msg: string, fields: Record<string, unknown> = {}): void => {
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })}\n`);
};

const fail = (message: string): never => {
  process.stderr.write(`comfy-serve: ${message}\n`);
  process.exit(64);
};

const USAGE = `Usage: npm run comfy-serve -- [options]

Runs the builtin engine as a server that speaks ComfyUI's HTTP and WebSocket protocol (ComfyUI 0.3.64).

Options (as ComfyUI's main.py):
  --listen [IP]               address to listen on (default 127.0.0.1; a bare --listen means all interfaces)
  --port PORT                 port (default 8188)
  --max-upload-size MB        request body limit (default 100)
  --input-directory DIR       default $COMFY_DATA_DIR/input
  --output-directory DIR      default $COMFY_DATA_DIR/output
  --temp-directory DIR        default $COMFY_DATA_DIR/temp
  --checkpoints LIST          comma-separated checkpoint files a CheckpointLoaderSimple offers (default: no loader)
  --model-load-ms MS          simulated load time when a prompt's model files differ from the last ones (default 0)
  --node-ms MS                simulated run time per executed node (default 0)
  -h, --help                  show this text

Environment: COMFY_HOST, COMFY_PORT, COMFY_DATA_DIR (default ./data/comfy), FFMPEG_PATH. Flags win.
`;

const readArgs = () => {
  try {
    return parseArgs({
      options: {
        listen: { type: 'string' },
        port: { type: 'string' },
        'max-upload-size': { type: 'string' },
        'input-directory': { type: 'string' },
        'output-directory': { type: 'string' },
        'temp-directory': { type: 'string' },
        checkpoints: { type: 'string' },
        'model-load-ms': { type: 'string' },
        'node-ms': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      // A bare `--listen` (ComfyUI: all interfaces) is read below from argv.
      args: process.argv.slice(2).map((arg, i, all) => (arg === '--listen' && (all[i + 1] ?? '--').startsWith('--') ? '--listen=0.0.0.0,::' : arg)),
      strict: true,
    }).values;
  } catch (error) {
    process.stderr.write(`comfy-serve: ${(error as Error).message}\n\n${USAGE}`);
    return process.exit(64);
  }
};

const args = readArgs();
if (args.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}

/** ComfyUI accepts a comma-separated list; one Node server listens on one address, and `::` covers both stacks. */
const listenHost = (value: string): string => {
  const hosts = value.split(',').map((h) => h.trim()).filter(Boolean);
  if (hosts.length === 0) return '127.0.0.1';
  return hosts.includes('::') ? '::' : (hosts[0] as string);
};

const portText = args.port ?? process.env['COMFY_PORT'] ?? '8188';
const port = Number(portText);
if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`invalid port "${portText}"`);
const uploadMb = Number(args['max-upload-size'] ?? '100');
if (!Number.isFinite(uploadMb) || uploadMb <= 0) fail(`invalid --max-upload-size "${args['max-upload-size']}"`);

const costOf = (flag: 'model-load-ms' | 'node-ms'): number => {
  const value = Number(args[flag] ?? '0');
  if (!Number.isFinite(value) || value < 0) fail(`invalid --${flag} "${args[flag]}"`);
  return value;
};
const costs = { modelLoadMs: costOf('model-load-ms'), nodeMs: costOf('node-ms') };
const checkpoints = (args.checkpoints ?? '').split(',').map((name) => name.trim()).filter(Boolean);

const dataDir = resolve(process.env['COMFY_DATA_DIR'] || './data/comfy');
const dirs = {
  inputDir: resolve(args['input-directory'] ?? resolve(dataDir, 'input')),
  outputDir: resolve(args['output-directory'] ?? resolve(dataDir, 'output')),
  tempDir: resolve(args['temp-directory'] ?? resolve(dataDir, 'temp')),
};
const ffmpegPath = process.env['FFMPEG_PATH'];
const host = listenHost(args.listen ?? process.env['COMFY_HOST'] ?? '127.0.0.1');

const server = createComfyProtocolServer({
  runtime: new BuiltinRuntime({ ...dirs, ...(ffmpegPath ? { ffmpegPath } : {}), ...(checkpoints.length > 0 ? { extraNodes: [checkpointLoaderNode(checkpoints)] } : {}) }),
  ...dirs,
  ...(costs.modelLoadMs > 0 || costs.nodeMs > 0 ? { costs } : {}),
  host,
  port,
  maxUploadBytes: Math.round(uploadMb * 1024 * 1024),
});

let stopping = false;
const shutdown = async (signal: string): Promise<void> => {
  if (stopping) return;
  stopping = true;
  log('info', 'shutting down', { signal });
  const force = setTimeout(() => process.exit(1), 20_000);
  force.unref();
  try {
    // Interrupts the running prompt (it lands in history as interrupted) and closes every socket.
    await server.close();
    process.exit(0);
  } catch (error) {
    log('error', 'shutdown failed', { error: error instanceof Error ? error.stack : String(error) });
    process.exit(1);
  }
};
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));

try {
  const { port: bound } = await server.listen();
  const shown = host.includes(':') ? `[${host}]` : host;
  log('info', 'ComfyUI protocol server listening', { url: `http://${shown}:${bound}`, ...dirs });
} catch (error) {
  log('error', 'start-up failed', { error: error instanceof Error ? error.stack : String(error) });
  process.exit(1);
}
