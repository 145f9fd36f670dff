import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { circles, describeCircles, importGraph, specifiersOf } from "./support/import-graph.js";

/**
 * Dependencies point one way (http → domain ← store/<engine>; the console's pages → its
 * shell): a circle of imports, even of types only, is two modules that cannot be read,
 * tested or replaced one without the other, and at run time one of them is used before it
 * has finished loading.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const graph = importGraph(root, ["src", "console/src"]);
const DRIVERS = ["better-sqlite3", "postgres", "pg", "pg-cursor", "sqlite3"];

test("no import circle in src/ or console/src/ (type-only imports included)", () => {
  assert.ok(graph.edges.size > 100, "the graph holds the source files");
  const found = circles(graph.edges);
  assert.equal(found.length, 0, `import circles:\n${describeCircles(graph.edges, found)}`);
});

test("src/domain and src/http import no database driver; src/domain imports nothing of src/http", () => {
  const offending: string[] = [];
  for (const [file, specifiers] of graph.external) {
    if (!/^src\/(domain|http)\//.test(file)) continue;
    for (const specifier of specifiers) {
      if (DRIVERS.some((driver) => specifier === driver || specifier.startsWith(`${driver}/`))) offending.push(`${file} imports ${specifier}`);
    }
  }
  for (const [file, targets] of graph.edges) {
    if (!file.startsWith("src/domain/")) continue;
    for (const target of targets) if (target.startsWith("src/http/")) offending.push(`${file} imports ${target}`);
  }
  assert.deepEqual(offending, []);
});

test("the checks see what they look for: every import form, and a circle when there is one", () => {
  const text = [
    `import a from "./a.js";`, `import type { B } from "./b.js";`, `import { type C } from "./c.js";`,
    `export * from "./d.js";`, `export type { E } from "./e.js";`, `import "./f.js";`,
    `import g = require("./g.js");`, `const h = await import("./h.js");`, `let i: import("./i.js").I;`,
  ].join("\n");
  assert.deepEqual(specifiersOf("x.ts", text), ["./a.js", "./b.js", "./c.js", "./d.js", "./e.js", "./f.js", "./g.js", "./h.js", "./i.js"]);
  assert.deepEqual(specifiersOf("x.tsx", `import { h } from "preact";\nexport const X = () => <div />;`), ["preact"]);

  const edges = new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a", "d"]], ["d", []], ["e", ["e"]]]);
  assert.deepEqual(circles(edges), [["a", "b", "c"], ["e"]]);
  assert.match(describeCircles(edges, circles(edges)), /a → b → c → a/);
  assert.ok(graph.edges.get("src/domain/errors.ts") !== undefined, "the graph names files relative to the root");
});
