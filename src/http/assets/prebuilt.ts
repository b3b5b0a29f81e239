import type { BrowserFile } from "./build";

/**
 * The browser files built when the binary was compiled, by name; null when running from a
 * checkout. scripts/build.ts replaces this module (through Bun.build's `files`) with one holding
 * the output of buildBrowserFiles(), so the binary never bundles at run time.
 */
export const PREBUILT: Readonly<Record<BrowserFile, string>> | null = null;
