import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import test from 'ava';
import { buildWebApp, DIST_DIR } from '../../web/build.ts';

// ADR 023: the built client is committed; it must be exactly what the source builds to.
test('web/dist matches a fresh build of web/src (run `npm run build:web` after changing the client)', async (t) => {
  const built = await buildWebApp();
  t.deepEqual([...built.keys()].sort(), ['app.css', 'app.js', 'index.html']);
  for (const [name, text] of built) {
    const committed = readFileSync(path.join(DIST_DIR, name), 'utf8');
    t.true(committed === text, `web/dist/${name} is stale: run npm run build:web`);
  }
  const sizes = Object.fromEntries([...built].map(([name, text]) => [name, { bytes: Buffer.byteLength(text), gzipBytes: gzipSync(text).length }]));
  console.log(JSON.stringify({ bench: 'web-bundle-size', ...sizes }));
  const total = [...built.values()].reduce((sum, text) => sum + gzipSync(text).length, 0);
  t.true(total < 40 * 1024, `the client is ${total} bytes gzipped`);
});

test('index.html loads only same-origin files and has no inline script or style', (t) => {
  const html = readFileSync(path.join(DIST_DIR, 'index.html'), 'utf8');
  t.notRegex(html, /<script(?![^>]*\ssrc=)[^>]*>/, 'no inline <script>');
  t.notRegex(html, /<style|\sstyle=/, 'no inline styles');
  t.notRegex(html, /(src|href)="(https?:)?\/\//, 'nothing from another origin');
});
