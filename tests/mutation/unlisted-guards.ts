/**
 * Where to look for guards no mutation entry names: every line under core/, adapters/, bootstrap/ and web/src/
 * (migrations left out) that starts an `if` or `else if`, or that holds a condition of a statement (a SQL `WHERE` or
 * `AND` with a comparison, a Sequelize `where` or operator: a conditional update's guard, a query's owner or state
 * filter), or a condition in an expression (a ternary on a comparison, a `filter`/`find`/`some`/`every` predicate,
 * `&&`/`||` on comparisons), and that no entry's find overlaps. Expression lines are mostly formatting: they are counted
 * apart. A line listed is a place to look, not a verdict: many are logging, formatting, checks whose deletion crashes
 * at load, or a point read by its key. `npm run mutation:unlisted` prints the count per file; with a path fragment
 * (`npm run mutation:unlisted -- use-cases/coins`) it prints each line.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Mutation } from './mutation.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const LIST_DIR = path.join(ROOT, 'tests/mutation/mutations');

const findsByFile = new Map<string, string[]>();
for (const list of readdirSync(LIST_DIR).filter((name) => name.endsWith('.mutations.ts'))) {
  const { MUTATIONS } = (await import(pathToFileURL(path.join(LIST_DIR, list)).href)) as { MUTATIONS: Mutation[] };
  for (const edit of MUTATIONS.flatMap((mutation) => [mutation, ...(mutation.also ?? [])])) {
    findsByFile.set(edit.file, [...(findsByFile.get(edit.file) ?? []), edit.find]);
  }
}

const sources = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === 'migrations' ? [] : sources(full);
    return name.endsWith('.ts') ? [full] : [];
  });

const fragment = process.argv[2];
const perFile = new Map<string, number>();
const IF_LINE = /^\s*(\} else )?if \(/;
const CONDITION_LINE = /\b(WHERE|AND)\b [^']*?(=|<|>|\bIS\b|\bIN\b)|where:\s*\{|\bwhere\(|Op\.(lt|gt|lte|gte|ne|in)\b/;
const EXPRESSION_TERNARY = /(===|!==|[<>]=?|\binstanceof\b|\bincludes\(|\bhas\()[^?]*\?[^?.:][^:]*:/;
const EXPRESSION_LOGICAL = /\b(return|=)\b[^=]*[^=!<>](===|!==)[^;]*(&&|\|\|)|\.(filter|some|every|find)\(\(?\w+\)? =>/;
/** Which kind of guard line this is, if any: an `if`, a statement's condition, or a condition in an expression. */
const kindOf = (line: string): 'if' | 'condition' | 'expression' | null => {
  if (IF_LINE.test(line)) return 'if';
  if (/^\s*(\*|\/\/)/.test(line)) return null;
  if (CONDITION_LINE.test(line)) return 'condition';
  return EXPRESSION_TERNARY.test(line) || EXPRESSION_LOGICAL.test(line) ? 'expression' : null;
};
const counts = { if: { lines: 0, unlisted: 0 }, condition: { lines: 0, unlisted: 0 }, expression: { lines: 0, unlisted: 0 } };
for (const file of ['core', 'adapters', 'bootstrap', 'web/src'].flatMap((dir) => sources(path.join(ROOT, dir)))) {
  const relative = path.relative(ROOT, file);
  const text = readFileSync(file, 'utf8');
  const finds = (findsByFile.get(relative) ?? []).map((find) => ({ at: text.indexOf(find), length: find.length }));
  let offset = 0;
  text.split('\n').forEach((line, index) => {
    const start = offset;
    offset += line.length + 1;
    const kind = kindOf(line);
    if (kind === null) return;
    counts[kind].lines += 1;
    if (finds.some((find) => find.at !== -1 && find.at < start + line.length && find.at + find.length > start)) return;
    counts[kind].unlisted += 1;
    perFile.set(relative, (perFile.get(relative) ?? 0) + 1);
    if (fragment && relative.includes(fragment)) console.log(`${relative}:${index + 1}: ${line.trim()}`);
  });
}
if (!fragment) for (const [file, count] of [...perFile].sort((a, b) => b[1] - a[1])) console.log(`${String(count).padStart(4)} ${file}`);
console.log(
  JSON.stringify({
    ifLines: counts.if.lines,
    unlisted: counts.if.unlisted,
    conditionLines: counts.condition.lines,
    conditionsUnlisted: counts.condition.unlisted,
    expressionLines: counts.expression.lines,
    expressionsUnlisted: counts.expression.unlisted,
  }),
);
