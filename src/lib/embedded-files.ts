/**
 * The project files the compiled binary carries as text, keyed by path relative to the project
 * root ("packages/payjs/browser.ts"). Null when running from sources: scripts/build.ts replaces this module
 * (through Bun.build's `files`) with one holding every file of EMBEDDED_DIRS.
 */
export const EMBEDDED_FILES: Readonly<Record<string, string>> | null = null;
