// @ts-check
/**
 * ESLint for the repository's TypeScript (`npm run lint`, part of `npm test`): typescript-eslint's
 * type-aware rules about promises and errors, which tsc does not check. An un-awaited promise loses
 * its error and its ordering; an `await` on a value that is not a promise says something is
 * asynchronous when it is not.
 *
 * This package has its own TypeScript 5 because typescript-eslint reads types through the
 * TypeScript 5 compiler API, which the repository's TypeScript 7 does not have (tsc stays 7).
 * The rest of recommended-type-checked is not on: its no-unsafe-* rules flag thousands of values
 * typed from Elysia and JSON, and cost most of the run time.
 *
 * bun:test's `.rejects` and `.resolves` matchers wait for the promise themselves and return
 * undefined (typed void), so `expect(promise).rejects.toThrow()` takes no `await`; were that to
 * change, no-floating-promises would point at each of them.
 */
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["**/node_modules/", "**/dist/", ".paysandbox/", "tests/openapi-client/", "test-artifacts/"] },
  {
    files: ["**/*.ts"],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: process.cwd() },
    },
    plugins: { "@typescript-eslint": tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/await-thenable": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/only-throw-error": "error",
      // A caught error (unknown) passed on as it is, as only-throw-error allows by default.
      "@typescript-eslint/prefer-promise-reject-errors": ["error", { allowThrowingUnknown: true }],
    },
  },
  {
    // One idea per file: no source file over 400 lines, counted as `wc -l` counts them (blank
    // lines and comments too). Tests and generated code (dist/) are not held to it.
    files: ["src/**/*.ts", "packages/**/*.ts", "scripts/**/*.{ts,mjs}", "bench/**/*.{ts,mjs}", "examples/**/*.ts"],
    rules: { "max-lines": ["error", { max: 400, skipBlankLines: false, skipComments: false }] },
  },
);
