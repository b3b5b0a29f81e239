/**
 * Type-checked by `tsc --noEmit` (npm test): the hand-written testing/index.d.ts — what
 * integrators' editors read — and the implementation in testing/src cannot drift apart.
 */
import type * as Declared from "./index";
import * as Implemented from "./src/index";

// Every declared export is implemented, with a type its declaration accepts…
export const implementsTheDeclaration: typeof Declared = Implemented;

// …and the implementation exports nothing the declaration does not promise.
type Undeclared = Exclude<keyof typeof Implemented, keyof typeof Declared>;
export const nothingUndeclared: [Undeclared] extends [never] ? true : Undeclared = true;
