import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The tree's layers: the domain and the HTTP routes see the store only through its
 * interface (src/store/store.ts) and never a database driver, so that an engine is
 * one folder under src/store and nothing else.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const DRIVERS = ["better-sqlite3", "postgres", "pg", "pg-cursor", "sqlite3"];
const ENGINE_PATH = /\/store\/(?!store\.js$|file-blobs\.js$)/;

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith(".ts") ? [full] : [];
  });
}

function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, "utf8");
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+"([^"]+)"|import\(\s*"([^"]+)"\s*\)/g)]
    .map((m) => m[1] ?? m[2]!);
}

for (const layer of ["src/domain", "src/http"]) {
  test(`${layer} imports no engine module and no driver`, () => {
    const files = sources(path.join(root, layer));
    assert.ok(files.length > 5, `${layer} holds source files`);
    const offending = files.flatMap((file) => importsOf(file)
      .filter((specifier) => DRIVERS.includes(specifier) || DRIVERS.some((d) => specifier.startsWith(`${d}/`)) ||
        (specifier.startsWith(".") && ENGINE_PATH.test(specifier.replace(/^(\.\.?\/)+/, "/"))))
      .map((specifier) => `${path.relative(root, file)} imports ${specifier}`));
    assert.deepEqual(offending, []);
  });
}

test("the import check sees an engine import when there is one", () => {
  assert.ok(ENGINE_PATH.test("/store/sqlite/sqlite-store.js"));
  assert.ok(ENGINE_PATH.test("/store/open-store.js"));
  assert.ok(!ENGINE_PATH.test("/store/store.js"));
  assert.deepEqual(importsOf(path.join(root, "src/store/sqlite/sqlite-store.ts")).filter((s) => DRIVERS.includes(s)), ["better-sqlite3"]);
});

test("src/client imports only itself and node: built-ins (it must work against any service)", () => {
  const dir = path.join(root, "src/client");
  const files = sources(dir);
  assert.ok(files.length >= 5, "src/client holds source files");
  const offending = files.flatMap((file) => importsOf(file)
    .filter((specifier) => !specifier.startsWith("node:") &&
      !(specifier.startsWith("./") && !specifier.includes("/", 2)))
    .map((specifier) => `${path.relative(root, file)} imports ${specifier}`));
  assert.deepEqual(offending, []);
});
