import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

/**
 * The import graph of a source tree, read with the TypeScript parser: every `import`,
 * `import type`, `export … from`, `import x = require()`, `import()` and `import("…").T`.
 * A type-only import is a dependency too: it ties one layer's code to another's.
 */
export interface ImportGraph {
  /** Each file (relative to the root, with "/") → the files of the tree it imports. */
  readonly edges: ReadonlyMap<string, readonly string[]>;
  /** Each file → the specifiers it imports that are not files of the tree (packages, node: built-ins). */
  readonly external: ReadonlyMap<string, readonly string[]>;
}

/** The module specifiers one source text names. */
export function specifiersOf(fileName: string, text: string): string[] {
  const kind = fileName.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, kind);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) {
      found.push(node.moduleReference.expression.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      found.push(node.arguments[0].text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function sourcesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourcesUnder(full);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [full] : [];
  });
}

/** The source file a relative specifier names (NodeNext's "./x.js" or the bundler's "./x"), if it exists. */
function resolveRelative(from: string, specifier: string): string | undefined {
  const base = path.resolve(path.dirname(from), specifier);
  const stem = base.replace(/\.(js|jsx|ts|tsx)$/, "");
  const candidates = [base, `${stem}.ts`, `${stem}.tsx`, path.join(base, "index.ts"), path.join(base, "index.tsx")];
  return candidates.find((file) => /\.tsx?$/.test(file) && fs.existsSync(file) && fs.statSync(file).isFile());
}

/** The graph of every .ts and .tsx file under the given folders of `root`. */
export function importGraph(root: string, folders: readonly string[]): ImportGraph {
  const edges = new Map<string, string[]>();
  const external = new Map<string, string[]>();
  const name = (file: string): string => path.relative(root, file).split(path.sep).join("/");
  for (const file of folders.flatMap((folder) => sourcesUnder(path.join(root, folder)))) {
    const inTree: string[] = [];
    const outside: string[] = [];
    for (const specifier of specifiersOf(file, fs.readFileSync(file, "utf8"))) {
      const target = specifier.startsWith(".") ? resolveRelative(file, specifier) : undefined;
      if (target) inTree.push(name(target));
      else if (!specifier.startsWith(".")) outside.push(specifier);
      // A stylesheet or other asset the bundler takes: no code, so no dependency to follow.
      else if (!fs.existsSync(path.resolve(path.dirname(file), specifier))) throw new Error(`${name(file)} imports ${specifier}, which does not exist`);
    }
    edges.set(name(file), [...new Set(inTree)]);
    external.set(name(file), [...new Set(outside)]);
  }
  return { edges, external };
}

/** The strongly connected components of more than one file, or of one importing itself (Tarjan). */
export function circles(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const connect = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const to of edges.get(node) ?? []) {
      if (!index.has(to)) {
        connect(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (edges.get(node) ?? []).includes(node)) found.push(component.sort());
  };
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) connect(node);
  return found.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** The shortest import path from `from` back to itself within `members`, as "a → b → a". */
export function shortestCircle(edges: ReadonlyMap<string, readonly string[]>, members: ReadonlySet<string>, from: string): string[] {
  const previous = new Map<string, string>();
  const queue = [from];
  for (let i = 0; i < queue.length; i += 1) {
    const node = queue[i]!;
    for (const to of edges.get(node) ?? []) {
      if (!members.has(to)) continue;
      if (to === from) {
        const circle = [from];
        for (let at: string | undefined = node; at !== undefined && at !== from; at = previous.get(at)) circle.unshift(at);
        circle.unshift(from);
        return circle;
      }
      if (previous.has(to)) continue;
      previous.set(to, node);
      queue.push(to);
    }
  }
  return [];
}

/** Each component as its files and the distinct shortest circles through them, for a failure message. */
export function describeCircles(edges: ReadonlyMap<string, readonly string[]>, components: readonly string[][]): string {
  return components.map((component) => {
    const members = new Set(component);
    const seen = new Set<string>();
    const lines: string[] = [];
    for (const file of component) {
      const circle = shortestCircle(edges, members, file);
      // One rotation of a circle stands for all: keyed by its sorted files.
      const key = [...new Set(circle)].sort().join(" ");
      if (circle.length === 0 || seen.has(key)) continue;
      seen.add(key);
      lines.push(`  ${circle.join(" → ")}`);
    }
    return `${component.length} files in a circle:\n${lines.join("\n")}`;
  }).join("\n");
}
