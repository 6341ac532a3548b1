import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';

const root = path.resolve(import.meta.dirname, '../..');

test('.env.example documents exactly the variables bootstrap/config.ts and its section readers read', (t) => {
  const sections = readdirSync(path.join(root, 'bootstrap/config')).filter((name) => name.endsWith('.ts'));
  t.true(sections.length > 5, `found ${sections.length} section readers in bootstrap/config/`);
  const source = ['bootstrap/config.ts', ...sections.map((name) => `bootstrap/config/${name}`)]
    .map((file) => readFileSync(path.join(root, file), 'utf8'))
    .join('\n');
  const read = new Set([...source.matchAll(/read\.\w+(?:<[^>]*>)?\(\s*'([A-Z][A-Z0-9_]*)'/g)].map((match) => match[1]!));
  t.true(read.size > 20, `found ${read.size} variables in the config readers`);

  const lines = readFileSync(path.join(root, '.env.example'), 'utf8').split('\n');
  const documented = new Set<string>();
  lines.forEach((line, index) => {
    const name = /^([A-Z][A-Z0-9_]*)=/.exec(line)?.[1];
    if (!name) return;
    documented.add(name);
    t.true((lines[index - 1] ?? '').startsWith('#') || (lines[index - 2] ?? '').startsWith('#'), `${name} has a comment above it`);
  });

  t.deepEqual([...read].filter((name) => !documented.has(name)).sort(), [], 'read by config.ts but missing from .env.example');
  t.deepEqual([...documented].filter((name) => !read.has(name)).sort(), [], 'in .env.example but never read');
});
