import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import test from 'ava';
import type { Mutation } from '../mutation/mutation.ts';

// The mutation lists name guards by their text. A change that moves a guard's text leaves its entry stale, and the
// runner (`npm run mutation`) only finds out when someone runs that entry. Here every commit checks the whole list:
// each edit's text occurs exactly once in its file (the runner replaces the first occurrence: a second one would let an
// entry delete the wrong copy), every test file it names exists, and no two entries share a name.
const ROOT = path.resolve(import.meta.dirname, '../..');
const LIST_DIR = path.join(ROOT, 'tests/mutation/mutations');

const lists = readdirSync(LIST_DIR).filter((name) => name.endsWith('.mutations.ts')).sort();
const entries: { list: string; mutation: Mutation }[] = [];
for (const list of lists) {
  const module = (await import(pathToFileURL(path.join(LIST_DIR, list)).href)) as { MUTATIONS: Mutation[] };
  for (const mutation of module.MUTATIONS) entries.push({ list, mutation });
}

const occurrences = (text: string, find: string): number => {
  let count = 0;
  for (let at = text.indexOf(find); at !== -1; at = text.indexOf(find, at + 1)) count += 1;
  return count;
};

test('every edit of every mutation finds its text exactly once in its file', (t) => {
  t.true(entries.length > 4000, `${entries.length} entries`);
  const files = new Map<string, string>();
  const wrong: string[] = [];
  for (const { list, mutation } of entries) {
    for (const edit of [mutation, ...(mutation.also ?? [])]) {
      const file = path.join(ROOT, edit.file);
      if (!files.has(file)) files.set(file, existsSync(file) ? readFileSync(file, 'utf8') : '');
      const count = occurrences(files.get(file)!, edit.find);
      if (count !== 1) wrong.push(`${list}: "${mutation.name}" finds its text ${count} times in ${edit.file}`);
      if (edit.find === edit.replace) wrong.push(`${list}: "${mutation.name}" replaces its text by itself in ${edit.file}`);
    }
  }
  t.deepEqual(wrong, []);
});

test('every mutation names test files that exist, and a name of its own', (t) => {
  const names = new Map<string, string>();
  const wrong: string[] = [];
  for (const { list, mutation } of entries) {
    if (mutation.tests.length === 0) wrong.push(`${list}: "${mutation.name}" names no test`);
    for (const file of mutation.tests) if (!existsSync(path.join(ROOT, file))) wrong.push(`${list}: "${mutation.name}" names ${file}, which does not exist`);
    const earlier = names.get(mutation.name);
    if (earlier) wrong.push(`"${mutation.name}" is in ${earlier} and ${list}`);
    names.set(mutation.name, list);
  }
  t.deepEqual(wrong, []);
});
