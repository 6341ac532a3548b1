/**
 * Bundles the web client: web/src/main.ts (and the CSS it imports) into web/dist/app.js and app.css,
 * with web/index.html beside them. `npm run build:web` writes the files; the unit test
 * tests/unit/web-bundle.test.ts builds in memory and checks the committed files match (ADR 023).
 */
import { readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

export const WEB_DIR = import.meta.dirname;
export const DIST_DIR = path.join(WEB_DIR, 'dist');

/** The files of web/dist, name → contents, built from source. */
export async function buildWebApp(): Promise<Map<string, string>> {
  const result = await build({
    entryPoints: { app: path.join(WEB_DIR, 'src/main.ts') },
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2022', 'chrome110', 'firefox110', 'safari16'],
    outdir: DIST_DIR,
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
    charset: 'utf8',
  });
  const files = new Map<string, string>();
  for (const file of result.outputFiles) files.set(path.basename(file.path), file.text);
  files.set('index.html', readFileSync(path.join(WEB_DIR, 'index.html'), 'utf8'));
  return files;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const files = await buildWebApp();
  mkdirSync(DIST_DIR, { recursive: true });
  for (const [name, text] of files) writeFileSync(path.join(DIST_DIR, name), text);
  console.log([...files].map(([name, text]) => `${name} ${Buffer.byteLength(text)} bytes`).join('\n'));
}
