/**
 * ADR 028: a feature module builds its use cases once, in its factory. A `new X(...)` of a class imported
 * from core/use-cases may sit in a module's top-level function or in the callback of `forApi`/`forWorker`
 * (which the factory runs once), nowhere else: not in a scheduler task's `run`, not in a `toDynamicValue`
 * callback, not in a helper closure that each caller would run again.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import ts from 'typescript';
import { PROJECT_ROOT as root } from '../support/run-command.ts';

const MODULES_DIR = 'bootstrap/modules';
const ONCE_CALLBACKS = new Set(['forApi', 'forWorker']);

/** The names a module file imports from core/use-cases. */
function useCaseImports(source: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    if (!statement.moduleSpecifier.text.includes('/core/use-cases/')) continue;
    const bindings = statement.importClause?.namedBindings;
    if (bindings && ts.isNamedImports(bindings)) for (const element of bindings.elements) if (!element.isTypeOnly) names.add(element.name.text);
  }
  return names;
}

/** Where a function sits, for the report: `run:`, `toDynamicValue(...)`, or a nested function. */
function placeOf(fn: ts.Node): string {
  const parent = fn.parent;
  if ((ts.isPropertyAssignment(parent) || ts.isMethodDeclaration(parent)) && ts.isIdentifier(parent.name)) return `${parent.name.text}:`;
  if (ts.isMethodDeclaration(fn) && ts.isIdentifier(fn.name)) return `${fn.name.text}()`;
  if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return `const ${parent.name.text} = () => ...`;
  if (ts.isCallExpression(parent)) {
    const callee = parent.expression;
    const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : '?';
    return `${name}(...)`;
  }
  return 'a nested function';
}

const isOnceCallback = (fn: ts.Node): boolean =>
  ts.isCallExpression(fn.parent) && ts.isIdentifier(fn.parent.expression) && ONCE_CALLBACKS.has(fn.parent.expression.text);

/** Every `new UseCase(` a module builds again and again, as `file:line new X in <place>`. */
export function repeatedConstructions(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const useCases = useCaseImports(source);
  const problems: string[] = [];
  const visit = (node: ts.Node, enclosing: ts.Node | null): void => {
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && useCases.has(node.expression.text) && enclosing) {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      problems.push(`${file}:${line} new ${node.expression.text} in ${placeOf(enclosing)}`);
    }
    const isFunction = ts.isArrowFunction(node) || ts.isFunctionExpression(node) || ts.isMethodDeclaration(node) || ts.isFunctionDeclaration(node);
    // A top-level function (the factory) and a forApi/forWorker callback run once: what they build is built once.
    const topLevel = ts.isFunctionDeclaration(node) && node.parent === source;
    const next = isFunction && !topLevel && !(enclosing === null && isOnceCallback(node)) ? node : enclosing;
    ts.forEachChild(node, (child) => visit(child, next));
  };
  visit(source, null);
  return problems;
}

test('no feature module builds a use case per request, per tick or per call', (t) => {
  const files = readdirSync(path.join(root, MODULES_DIR)).filter((name) => name.endsWith('.ts'));
  t.true(files.includes('coins.module.ts') && files.includes('auth.module.ts'), 'the modules were read');
  const problems = files.flatMap((name) => repeatedConstructions(`${MODULES_DIR}/${name}`, readFileSync(path.join(root, MODULES_DIR, name), 'utf8')));
  t.deepEqual(problems, []);
});

test('the check catches a use case built in a scheduler run, a route binding and a helper closure', (t) => {
  const text = [
    "import { Sweep } from '../../core/use-cases/coins/sweep.use-case.ts';",
    "import { Deduct, type Other } from '../../core/use-cases/coins/deduct.use-case.ts';",
    "import { Responder } from '../../adapters/http/idempotency.ts';",
    'export function bindCoins(container, config) {',
    '  const responder = new Responder();',
    '  container.bind(TOKENS.RouteModule).toDynamicValue(() => coinRoutes({ deduct: new Deduct({}) }));',
    "  ports.scheduler().add({ name: 'sweep', roles: ['api'], everyMs: 1, run: () => new Sweep({}).execute() });",
    '  const ends = () => new Sweep({});',
    '  container.bind(TOKENS.Lifecycle).toConstantValue({ async start() { await new Sweep({}).execute(); } });',
    '}',
  ].join('\n');
  t.deepEqual(repeatedConstructions('bootstrap/modules/x.module.ts', text), [
    'bootstrap/modules/x.module.ts:6 new Deduct in toDynamicValue(...)',
    'bootstrap/modules/x.module.ts:7 new Sweep in run:',
    'bootstrap/modules/x.module.ts:8 new Sweep in const ends = () => ...',
    'bootstrap/modules/x.module.ts:9 new Sweep in start()',
  ]);
});

test('the check lets through use cases built once by the factory, in forApi and forWorker callbacks', (t) => {
  const text = [
    "import { Sweep } from '../../core/use-cases/coins/sweep.use-case.ts';",
    "import { Deduct } from '../../core/use-cases/coins/deduct.use-case.ts';",
    'export function coinsFeature(ports, config) {',
    '  const sweep = new Sweep({});',
    '  return {',
    '    routes: forApi(config, () => [coinRoutes({ deduct: new Deduct({}) })]),',
    '    handlers: forWorker(config, () => [handlerOf(new Deduct({}))]),',
    "    scheduled: [{ name: 'sweep', roles: ['api'], everyMs: 1, run: () => sweep.execute() }],",
    '  };',
    '}',
  ].join('\n');
  t.deepEqual(repeatedConstructions('bootstrap/modules/x.module.ts', text), []);
});
