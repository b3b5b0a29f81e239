/**
 * payjs.js as a package: `browser.ts` is the bundle's entry (it installs `window.PayJs`), this
 * module is its typed surface for code that imports it.
 */
export * from "./types";
