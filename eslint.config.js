// `npm run lint`: ESLint with typescript-eslint's type-aware rules over the service, its
// tests, the benchmarks, scripts and the console. Each TypeScript file is checked with the
// tsconfig.json nearest to it (projectService): console/ has its own (DOM, JSX, bundler).
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import { skipSaysWhy } from "./scripts/lint/skip-says-why.js";

const TEST_FUNCTIONS = ["test", "it", "describe", "suite"];

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "data/**", "console/dist/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      // node:test's test() and describe() return promises the runner itself waits for (780
      // findings otherwise). The allowance goes by name and so lets a subtest's t.test()
      // through too: the test rules below refuse one left unawaited.
      "@typescript-eslint/no-floating-promises": ["error", {
        allowForKnownSafeCalls: [{ from: "package", package: "node:test", name: TEST_FUNCTIONS }],
      }],
      // Off (130 findings, none a bug): an async function with no await is how code meets an
      // async contract synchronously: the SQLite engine implementing the Store's async
      // interface, Fastify hooks and handlers (Fastify tells an async hook from one that
      // takes a `done` callback by its being async), stand-ins in tests. Dropping `async`
      // would turn their throws into synchronous throws instead of rejected promises.
      "@typescript-eslint/require-await": "off",
      // An error received as unknown (a catch, a driver's reject) is passed on as it came.
      "@typescript-eslint/prefer-promise-reject-errors": ["error", { allowThrowingUnknown: true }],
      // A leading underscore marks a binding that is there for its position (a skipped
      // tuple element, a rest sibling dropped from a copy, an unused callback parameter).
      "@typescript-eslint/no-unused-vars": ["error", {
        argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_",
        destructuredArrayIgnorePattern: "^_", ignoreRestSiblings: true,
      }],
    },
  },
  {
    files: ["test/**/*.ts"],
    plugins: { local: { rules: { "skip-says-why": skipSaysWhy } } },
    rules: {
      // Off in tests only: a test reads an answer's JSON (typed JsonBody, test/support/json.ts)
      // by the shape the API documents, and its assertions are the check of that shape.
      // Typing every answer would repeat the API's schemas in ~1,700 places for no extra check.
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      // Nothing focused or switched off is left behind: a skip says why, at run time.
      "no-restricted-properties": ["error",
        ...TEST_FUNCTIONS.flatMap((object) => [
          { object, property: "only", message: "a focused test hides every other one: remove .only before committing" },
          { object, property: "skip", message: "say why it skips: { skip: \"reason\" } in its options, or t.skip(\"reason\") inside it" },
        ]),
      ],
      "no-restricted-syntax": ["error",
        {
          selector: `CallExpression:matches([callee.name=/^(${TEST_FUNCTIONS.join("|")})$/], [callee.property.name=/^(${TEST_FUNCTIONS.join("|")})$/]) > ObjectExpression > Property[key.name="only"]`,
          message: "a focused test hides every other one: remove { only } before committing",
        },
        { selector: "CallExpression[callee.property.name=\"runOnly\"]", message: "a focused test hides every other one: remove runOnly before committing" },
        {
          // no-floating-promises lets node:test's test() through (see above), and with it t.test().
          selector: `ExpressionStatement > CallExpression[callee.type="MemberExpression"][callee.object.type="Identifier"][callee.property.name=/^(${TEST_FUNCTIONS.join("|")})$/]`,
          message: "await the subtest: the parent test ends without waiting for a t.test() it does not await",
        },
      ],
      "local/skip-says-why": "error",
    },
  },
  {
    files: ["**/*.js", "**/*.mjs"],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      // Node's globals for the plain-JavaScript scripts (no type information to give them).
      globals: { process: "readonly", console: "readonly", URL: "readonly" },
    },
  },
);
