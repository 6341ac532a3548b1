/**
 * The layer rules of ARCHITECTURE.md, checked on the real source with the TypeScript parser the
 * project already has (so comments, strings and regular expressions never confuse it):
 * - core/** imports only core/** (relative paths), plus types from `node:stream`; no decorators;
 * - adapters/<x>/** never imports adapters/<y>/** or bootstrap/**;
 * - nothing under core/, adapters/ or bootstrap/ imports tests/;
 * - a file in core/use-cases/ says its role in its name: `*.use-case.ts` (each exported class is a use case
 *   with an `execute` method) or `*.service.ts` (shared by use cases: a helper class or functions).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import ts from 'typescript';
import { PROJECT_ROOT as root } from '../support/run-command.ts';


interface SourceFile {
  /** Relative to the project root, with forward slashes. */
  file: string;
  text: string;
}

interface ImportRef {
  specifier: string;
  typeOnly: boolean;
  line: number;
}

/** Every module a file refers to: import/export declarations, `import()` calls and `import('x').T` types. */
function importsOf(source: ts.SourceFile): ImportRef[] {
  const found: ImportRef[] = [];
  const line = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : undefined;
      const typeOnly = Boolean(clause && (clause.isTypeOnly || (!clause.name && named && named.length > 0 && named.every((element) => element.isTypeOnly))));
      found.push({ specifier: node.moduleSpecifier.text, typeOnly, line: line(node) });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ specifier: node.moduleSpecifier.text, typeOnly: node.isTypeOnly, line: line(node) });
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) {
      found.push({ specifier: node.moduleReference.expression.text, typeOnly: node.isTypeOnly, line: line(node) });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      found.push({ specifier: argument && ts.isStringLiteralLike(argument) ? argument.text : '<computed>', typeOnly: false, line: line(node) });
    } else if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'require') {
      const [argument] = node.arguments;
      found.push({ specifier: argument && ts.isStringLiteralLike(argument) ? argument.text : '<computed>', typeOnly: false, line: line(node) });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push({ specifier: node.argument.literal.text, typeOnly: true, line: line(node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function decoratorLines(source: ts.SourceFile): number[] {
  const lines: number[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isDecorator(node)) lines.push(source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return lines;
}

/** The layer a path belongs to: `core`, `adapters/<name>`, `bootstrap`, `tests`, or null (elsewhere). */
function layerOf(file: string): string | null {
  const [top, second] = file.split('/');
  if (top === 'adapters') return second && file.split('/').length > 2 ? `adapters/${second}` : 'adapters';
  if (top === 'core' || top === 'bootstrap' || top === 'tests') return top;
  return null;
}

/** Every broken rule, as `file:line message`. */
function layerViolations(files: SourceFile[]): string[] {
  const problems: string[] = [];
  for (const { file, text } of files) {
    const layer = layerOf(file);
    if (layer === null || layer === 'tests') continue;
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    for (const ref of importsOf(source)) {
      const where = `${file}:${ref.line}`;
      const relative = ref.specifier.startsWith('./') || ref.specifier.startsWith('../');
      const target = relative ? path.posix.normalize(path.posix.join(path.posix.dirname(file), ref.specifier)) : null;
      const targetLayer = target === null ? null : layerOf(target);
      if (targetLayer === 'tests') problems.push(`${where} imports tests/ (${ref.specifier})`);
      if (layer === 'core') {
        if (ref.specifier === 'node:stream') {
          if (!ref.typeOnly) problems.push(`${where} core may import only types from node:stream`);
        } else if (targetLayer !== 'core') {
          problems.push(`${where} core imports ${ref.specifier}, outside core/`);
        }
      } else if (layer.startsWith('adapters')) {
        if (targetLayer === 'bootstrap') problems.push(`${where} an adapter imports bootstrap/ (${ref.specifier})`);
        else if (targetLayer?.startsWith('adapters') && targetLayer !== layer) {
          problems.push(`${where} ${layer} imports another adapter, ${targetLayer} (${ref.specifier})`);
        }
      }
    }
    if (layer === 'core') {
      for (const line of decoratorLines(source)) problems.push(`${file}:${line} core carries a decorator`);
    }
  }
  return problems;
}

/** Files in core/use-cases/ whose name does not tell a use case from a shared service, or lie about it. */
function roleViolations(files: SourceFile[]): string[] {
  const problems: string[] = [];
  for (const { file, text } of files) {
    if (!file.startsWith('core/use-cases/')) continue;
    if (file.endsWith('.service.ts')) continue;
    if (!file.endsWith('.use-case.ts')) {
      problems.push(`${file} is neither a *.use-case.ts nor a *.service.ts`);
      continue;
    }
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    const classes = source.statements.filter(
      (node): node is ts.ClassDeclaration => ts.isClassDeclaration(node) && Boolean(node.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)),
    );
    if (classes.length === 0) problems.push(`${file} exports no use case class`);
    for (const declared of classes) {
      const execute = declared.members.some((member) => ts.isMethodDeclaration(member) && member.name.getText(source) === 'execute');
      if (!execute) problems.push(`${file} exports ${declared.name?.text ?? 'a class'} without execute(): a shared service belongs in a *.service.ts`);
    }
  }
  return problems;
}

function sourcesUnder(folder: string): SourceFile[] {
  const absolute = path.join(root, folder);
  return (readdirSync(absolute, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((entry) => entry.isFile() && /\.(ts|mts|cts|js|mjs)$/.test(entry.name))
    .map((entry) => {
      const full = path.join(entry.parentPath, entry.name);
      return { file: path.relative(root, full).split(path.sep).join('/'), text: readFileSync(full, 'utf8') };
    });
}

test('the real source keeps the layer rules', (t) => {
  const files = ['core', 'adapters', 'bootstrap'].flatMap(sourcesUnder);
  t.true(files.filter((f) => f.file.startsWith('core/')).length > 10, 'core/ was read');
  t.true(files.filter((f) => f.file.startsWith('adapters/')).length > 10, 'adapters/ was read');
  t.true(files.some((f) => f.file === 'bootstrap/main.ts'), 'bootstrap/ was read');
  t.deepEqual(layerViolations(files), []);
});

// ADR 060: Sequelize's SQLite dialect raises UniqueConstraintError for every constraint; a duplicate is recognised by
// isUniqueViolation (sql-scope.ts) alone, so a NOT NULL failure is never taken for a row already there.
test('only sql-scope.ts tells a duplicate by the UniqueConstraintError class', (t) => {
  const users = sourcesUnder('adapters').filter((f) => /\binstanceof UniqueConstraintError\b/.test(f.text)).map((f) => f.file);
  t.deepEqual(users, ['adapters/sequelize/sql-scope.ts']);
});

test('every file in core/use-cases/ names its role, and a use case file holds use cases', (t) => {
  const files = sourcesUnder('core/use-cases');
  t.true(files.filter((f) => f.file.endsWith('.use-case.ts')).length > 20, 'use cases were read');
  t.true(files.some((f) => f.file === 'core/use-cases/coins/job-payment.service.ts'), 'services were read');
  t.deepEqual(roleViolations(files), []);
  t.deepEqual(
    roleViolations([
      { file: 'core/use-cases/a/helper.ts', text: 'export const x = 1;' },
      { file: 'core/use-cases/a/b.use-case.ts', text: 'export class B { run() {} }\nexport class C { async execute() {} }' },
      { file: 'core/use-cases/a/c.use-case.ts', text: 'export function c() {}' },
      { file: 'core/use-cases/a/d.service.ts', text: 'export class D { help() {} }' },
      { file: 'core/domain/e.ts', text: 'export class E {}' },
    ]),
    [
      'core/use-cases/a/helper.ts is neither a *.use-case.ts nor a *.service.ts',
      'core/use-cases/a/b.use-case.ts exports B without execute(): a shared service belongs in a *.service.ts',
      'core/use-cases/a/c.use-case.ts exports no use case class',
    ],
  );
});

test('the checker catches each kind of violation', (t) => {
  const violations = layerViolations([
    { file: 'core/use-cases/a.use-case.ts', text: "import express from 'express';\nimport { x } from '../../adapters/http/x.ts';" },
    { file: 'core/ports/b.port.ts', text: "import { Readable } from 'node:stream';\nimport fs from 'node:fs';\nexport type S = import('../../bootstrap/config.ts').Config;" },
    { file: 'core/domain/c.ts', text: "const m = await import('../../tests/support/x.ts');\n@injectable()\nexport class C {}" },
    { file: 'adapters/http/d.ts', text: "import { T } from '../../bootstrap/tokens.ts';\nexport * from '../sequelize/models.ts';" },
    { file: 'adapters/sequelize/e.ts', text: "import { f } from '../../tests/support/f.ts';" },
    { file: 'bootstrap/f.ts', text: "import { g } from '../tests/support/g.ts';" },
  ]);
  t.deepEqual(violations, [
    'core/use-cases/a.use-case.ts:1 core imports express, outside core/',
    'core/use-cases/a.use-case.ts:2 core imports ../../adapters/http/x.ts, outside core/',
    'core/ports/b.port.ts:1 core may import only types from node:stream',
    'core/ports/b.port.ts:2 core imports node:fs, outside core/',
    'core/ports/b.port.ts:3 core imports ../../bootstrap/config.ts, outside core/',
    'core/domain/c.ts:1 imports tests/ (../../tests/support/x.ts)',
    'core/domain/c.ts:1 core imports ../../tests/support/x.ts, outside core/',
    'core/domain/c.ts:2 core carries a decorator',
    'adapters/http/d.ts:1 an adapter imports bootstrap/ (../../bootstrap/tokens.ts)',
    'adapters/http/d.ts:2 adapters/http imports another adapter, adapters/sequelize (../sequelize/models.ts)',
    'adapters/sequelize/e.ts:1 imports tests/ (../../tests/support/f.ts)',
    'bootstrap/f.ts:1 imports tests/ (../tests/support/g.ts)',
  ]);
});

test('the checker lets through what the rules allow', (t) => {
  t.deepEqual(
    layerViolations([
      {
        file: 'core/ports/ok.port.ts',
        text: [
          "import type { Readable } from 'node:stream';",
          "import { type Writable } from 'node:stream';",
          "import { fail } from '../domain/result.ts';",
          "export type { User } from '../domain/user.ts';",
          '// @injectable() in a comment, "@decorator" in a string and /@x/ in a regex are not decorators',
          "const email = /^[^@]+@[^@]+$/; const s = '@inject';",
        ].join('\n'),
      },
      { file: 'adapters/http/ok.ts', text: "import express from 'express';\nimport type { User } from '../../core/domain/user.ts';\nimport { a } from './routes/a.ts';" },
      { file: 'bootstrap/ok.ts', text: "import { A } from '../adapters/http/a.ts';\nimport { B } from '../adapters/sequelize/b.ts';\n@injectable()\nclass X {}" },
    ]),
    [],
  );
});
