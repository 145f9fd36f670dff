import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/**
 * The ports the domain needs from storage (src/domain/ports) stay small: no interface
 * offers more than MAX_METHODS methods, its inherited ones included, so that a concern
 * that grows is split rather than the Store widened again. Read from the sources with
 * the TypeScript compiler, as the build reads them.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const PORTS = path.join(root, "src/domain/ports");
const MAX_METHODS = 20;

/** Each exported interface of the ports, with the number of methods it offers. */
function methodCounts(): Map<string, number> {
  const files = fs.readdirSync(PORTS).filter((name) => name.endsWith(".ts")).map((name) => path.join(PORTS, name));
  const program = ts.createProgram(files, {
    strict: true, noEmit: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022,
  });
  const checker = program.getTypeChecker();
  const counts = new Map<string, number>();
  for (const file of files) {
    ts.forEachChild(program.getSourceFile(file)!, (node) => {
      if (!ts.isInterfaceDeclaration(node)) return;
      const methods = checker.getPropertiesOfType(checker.getTypeAtLocation(node.name))
        .filter((property) => checker.getTypeOfSymbolAtLocation(property, node).getNonNullableType().getCallSignatures().length > 0);
      counts.set(`${path.basename(file)} ${node.name.text}`, methods.length);
    });
  }
  return counts;
}

test(`no port of the store offers more than ${MAX_METHODS} methods`, () => {
  const counts = methodCounts();
  // The count sees methods, inherited ones included (the check can fail).
  assert.equal(counts.get("records.ts RecordReads"), 9);
  assert.ok((counts.get("records.ts RecordWrites") ?? 0) > (counts.get("records.ts RecordReads") ?? 0));
  assert.ok(counts.size >= 20, `${counts.size} interfaces read`);
  const wide = [...counts].filter(([, n]) => n > MAX_METHODS).map(([name, n]) => `${name}: ${n}`);
  assert.deepEqual(wide, []);
});
