// A local ESLint rule: a test that skips says why, in words the run prints. The allowed forms
// are `{ skip: reason }` in a test's options, where reason is a string or false (usually
// `cond ? false : "why"`), and `t.skip("why")` inside the test. A bare `true`, a boolean
// expression or `t.skip()` with no reason would print a skip nobody can judge later, so
// they are refused. `test.only`, `test.skip` and `{ only: true }` are refused in
// eslint.config.js itself (no-restricted-properties, no-restricted-syntax).
import ts from "typescript";

const TEST_CALL = /^(test|it|describe|suite)$/;

/** Whether the call is test(…), it(…), describe(…), suite(…) or t.test(…). */
function isTestCall(node) {
  const callee = node.callee;
  if (callee.type === "Identifier") return TEST_CALL.test(callee.name);
  return callee.type === "MemberExpression" && !callee.computed && callee.property.type === "Identifier" && TEST_CALL.test(callee.property.name);
}

/** The constituents of a type that are not a string or `false` (so the skip would print no reason). */
function reasonless(checker, type) {
  const parts = type.isUnion() ? type.types : [type];
  return parts.filter((part) => {
    if (part.flags & (ts.TypeFlags.StringLike | ts.TypeFlags.Undefined)) return false;
    if (part.flags & ts.TypeFlags.BooleanLiteral) return checker.typeToString(part) === "true";
    return true;
  });
}

export const skipSaysWhy = {
  meta: {
    type: "problem",
    docs: { description: "a skipped test says why: { skip: \"reason\" } or t.skip(\"reason\")" },
    schema: [],
    messages: {
      option: "`skip` must be a reason (a string) or false, not {{type}}: write `cond ? false : \"why\"`",
      call: "t.skip() needs its reason as a string: t.skip(\"why\")",
    },
  },
  create(context) {
    const services = context.sourceCode.parserServices;
    if (!services?.program) throw new Error("skip-says-why needs type information (parserOptions.projectService)");
    const checker = services.program.getTypeChecker();
    const typeOf = (node) => services.getTypeAtLocation(node);
    return {
      CallExpression(node) {
        if (isTestCall(node)) {
          for (const arg of node.arguments) {
            if (arg.type !== "ObjectExpression") continue;
            for (const prop of arg.properties) {
              if (prop.type !== "Property" || prop.computed || prop.key.type !== "Identifier" || prop.key.name !== "skip") continue;
              const bad = reasonless(checker, typeOf(prop.value));
              if (bad.length > 0) context.report({ node: prop, messageId: "option", data: { type: bad.map((t) => checker.typeToString(t)).join(" | ") } });
            }
          }
          return;
        }
        const callee = node.callee;
        if (callee.type !== "MemberExpression" || callee.computed || callee.property.type !== "Identifier" || callee.property.name !== "skip") return;
        if (callee.object.type === "Identifier" && TEST_CALL.test(callee.object.name)) return; // test.skip: refused by no-restricted-properties
        const reason = node.arguments[0];
        const objectType = checker.typeToString(typeOf(callee.object));
        if (!/TestContext|SuiteContext/.test(objectType)) return;
        const type = reason && typeOf(reason);
        const parts = type ? (type.isUnion() ? type.types : [type]) : [];
        if (!reason || parts.some((part) => !(part.flags & ts.TypeFlags.StringLike))) context.report({ node, messageId: "call" });
      },
    };
  },
};
