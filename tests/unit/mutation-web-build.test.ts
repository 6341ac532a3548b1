import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { buildWeb } from '../mutation/mutation.ts';

// The mutation runner builds the browser tests' bundle from a mutated web/src (ADR 058). A mutation the bundle does not
// show, or one that does not build, must not reach the browser tests: there a committed bundle would pass for the
// mutant and read as "survived", or a broken one read as "caught". The real build on a scratch copy of web/.
const ROOT = path.resolve(import.meta.dirname, '../..');
const DOM = 'web/src/dom.ts';

function scratchCopy(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'mgs-web-build-'));
  cpSync(path.join(ROOT, 'web'), path.join(dir, 'web'), { recursive: true });
  // The project's package.json makes web/build.ts an ES module, as in the runner's full scratch copy.
  cpSync(path.join(ROOT, 'package.json'), path.join(dir, 'package.json'));
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  return dir;
}

/** Runs `buildWeb` on a scratch copy whose web/src/dom.ts had `find` replaced by `replace`. */
function buildMutated(find: string, replace: string): { verdict: string; originals: Map<string, string>; app: string } {
  const dir = scratchCopy();
  try {
    const source = path.join(dir, DOM);
    const text = readFileSync(source, 'utf8');
    if (!text.includes(find)) throw new Error(`${DOM} no longer has ${JSON.stringify(find)}`);
    writeFileSync(source, text.replace(find, replace));
    const originals = new Map<string, string>();
    const verdict = buildWeb(dir, originals);
    // The committed files are keyed by their path in the scratch copy; read them back under their plain names.
    const named = new Map([...originals].map(([file, committed]) => [path.relative(dir, file), committed]));
    return { verdict, originals: named, app: readFileSync(path.join(dir, 'web/dist/app.js'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const committed = (name: string) => readFileSync(path.join(ROOT, 'web/dist', name), 'utf8');

test('a source edit the bundle shows is built, and the committed bundle is kept to be put back', (t) => {
  const { verdict, originals, app } = buildMutated("name !== 'list'", "name !== 'lisp'");
  t.is(verdict, 'built');
  t.true(app.includes('"lisp"') || app.includes("'lisp'"), 'the browser tests get the mutated bundle');
  t.deepEqual([...originals.keys()].sort(), ['web/dist/app.css', 'web/dist/app.js', 'web/dist/index.html']);
  for (const [file, text] of originals) t.true(text === committed(path.basename(file)), `${file} kept as committed`);
});

test('an edit the bundle does not show (a type only) is unchanged, not run', (t) => {
  // The members of a union reordered: no letter added. (esbuild names the minified identifiers by how often each
  // letter occurs in the source, types included, so a type that adds letters can rename them.)
  const { verdict, app } = buildMutated('export type Child = Node | string | number |', 'export type Child = Node | number | string |');
  t.is(verdict, 'unchanged');
  t.true(app === committed('app.js'));
});

test('a source that does not build is crashed, not run', (t) => {
  t.is(buildMutated("name !== 'list'", "name !== 'list' +").verdict, 'crashed');
});

test('files already kept by an earlier edit of the same mutation are not overwritten', (t) => {
  const dir = scratchCopy();
  try {
    const app = path.join(dir, 'web/dist/app.js');
    const originals = new Map([[app, 'kept before']]);
    buildWeb(dir, originals);
    t.is(originals.get(app), 'kept before');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
