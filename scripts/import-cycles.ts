// Import circles among a folder's TypeScript modules. Every static `import` and `export … from`
// with a relative specifier is an edge (type-only ones too: a circle of types is still two files
// that cannot be understood apart); dynamic `import()` is not, since it loads lazily. A circle is a
// strongly connected component of two or more files, or a file that imports itself.
//
//   tsx scripts/import-cycles.ts src web/src     prints each circle, exits 1 when there is one
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const SOURCE = /\.(ts|tsx)$/;

/** Every .ts/.tsx file under `dir` (declaration files left out). */
function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (SOURCE.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** The relative specifiers a module imports or re-exports statically. */
function staticSpecifiers(path: string): string[] {
  const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, false);
  const out: string[] = [];
  for (const statement of file.statements) {
    const spec =
      ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement) ? statement.moduleSpecifier : undefined;
    if (spec && ts.isStringLiteral(spec) && spec.text.startsWith('.')) out.push(spec.text);
  }
  return out;
}

/** The file a relative specifier names (NodeNext `./x.js` or bundler `./x`), if it is a source file. */
function resolveSpecifier(from: string, spec: string): string | undefined {
  const base = resolve(dirname(from), spec);
  const stem = base.replace(/\.(js|jsx|ts|tsx)$/, '');
  const candidates = [base, `${stem}.ts`, `${stem}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')];
  return candidates.find((c) => SOURCE.test(c) && existsSync(c) && statSync(c).isFile());
}

/** Each import circle under `root`, as paths relative to `root`, sorted. */
export function findImportCycles(root: string): string[][] {
  const files = sourceFiles(root).map((f) => resolve(f));
  const edges = new Map<string, string[]>();
  for (const file of files) {
    const targets = staticSpecifiers(file).map((s) => resolveSpecifier(file, s));
    edges.set(
      file,
      targets.filter((t): t is string => t !== undefined),
    );
  }
  return stronglyConnected(files, edges)
    .filter((group) => group.length > 1 || (edges.get(group[0]!) ?? []).includes(group[0]!))
    .map((group) => group.map((f) => relative(root, f)).sort())
    .sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** Tarjan's strongly connected components, iteratively (deep import chains overflow recursion). */
function stronglyConnected(nodes: string[], edges: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const groups: string[][] = [];
  let next = 0;
  for (const start of nodes) {
    if (index.has(start)) continue;
    const work: Array<{ node: string; edge: number }> = [{ node: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const out = edges.get(frame.node) ?? [];
      if (frame.edge < out.length) {
        const to = out[frame.edge++]!;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const group: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          group.push(member);
        } while (member !== frame.node);
        groups.push(group);
      }
    }
  }
  return groups;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  let found = 0;
  for (const root of process.argv.slice(2)) {
    for (const cycle of findImportCycles(root)) {
      found++;
      console.log(`${root}: ${cycle.join(' ↔ ')}`);
    }
  }
  process.exitCode = found > 0 ? 1 : 0;
}
