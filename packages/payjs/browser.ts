/**
 * The entry of /payjs.js: defines window.PayJs (and window.PayJsError) and learns where the
 * sandbox is from this script's own URL, so the tag works on a page of any origin.
 */
import { PayJsError } from "./errors";
import { PayJs, sandboxBaseFromScript, setSandboxBase } from "./payjs";

// currentScript is set while a classic script runs (async and defer included); the lookup by
// name covers the rest.
const script =
  (document.currentScript as HTMLScriptElement | null) ??
  document.querySelector<HTMLScriptElement>('script[src$="/payjs.js"], script[src*="/payjs.js?"]');
setSandboxBase(sandboxBaseFromScript(script?.src, location.href));
window.PayJs = PayJs;
window.PayJsError = PayJsError;
