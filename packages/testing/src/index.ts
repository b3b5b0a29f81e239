/**
 * paysandbox/testing: the implementation of testing/index.d.ts. Built into testing/dist (ESM and
 * CommonJS, for Node 20+ and every test runner) by scripts/build-testing.ts.
 */
export { startSandbox } from "./sandbox";
export { cards, bank } from "./test-data";
export { fillCard } from "./browser";
