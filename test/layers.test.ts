import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The tree's layers: http → domain → ports ← store/<engine>. The domain owns the
 * interfaces it needs from storage (src/domain/ports/); the domain, the HTTP routes and
 * the event delivery import nothing from src/store (types included) and never a
 * database driver, so that an engine is one folder under src/store and nothing else.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const DRIVERS = ["better-sqlite3", "postgres", "pg", "pg-cursor", "sqlite3"];
const STORE_PATH = /(^|\/)store\//;

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

/** Whether a relative import of `file` names a module under src/store. */
function intoStore(file: string, specifier: string): boolean {
  return specifier.startsWith(".") && STORE_PATH.test(path.relative(path.join(root, "src"), path.resolve(path.dirname(file), specifier)));
}

for (const layer of ["src/domain", "src/http", "src/events"]) {
  test(`${layer} imports nothing from src/store and no driver`, () => {
    const files = sources(path.join(root, layer));
    assert.ok(files.length > 5, `${layer} holds source files`);
    const offending = files.flatMap((file) => importsOf(file)
      .filter((specifier) => DRIVERS.includes(specifier) || DRIVERS.some((d) => specifier.startsWith(`${d}/`)) || intoStore(file, specifier))
      .map((specifier) => `${path.relative(root, file)} imports ${specifier}`));
    assert.deepEqual(offending, []);
  });
}

test("the import check sees a store import when there is one", () => {
  assert.ok(intoStore(path.join(root, "src/domain/records.ts"), "../store/sqlite/sqlite-store.js"));
  assert.ok(intoStore(path.join(root, "src/domain/counting/settle.ts"), "../../store/file-blobs.js"));
  assert.ok(!intoStore(path.join(root, "src/domain/counting/settle.ts"), "../ports/store.js"));
  assert.ok(!intoStore(path.join(root, "src/domain/records.ts"), "./ports/store.js"));
  assert.deepEqual(importsOf(path.join(root, "src/store/sqlite/connection.ts")).filter((s) => DRIVERS.includes(s)), ["better-sqlite3"]);
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
