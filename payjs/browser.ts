/**
 * The entry of /payjs.js: defines window.PayJs (and window.PayJsError) and learns where the
 * sandbox is from this script's own URL, so the tag works on a page of any origin.
 */
import { PayJsError } from "./errors";
import { PayJs, sandboxBaseFromScript, setSandboxBase } from "./payjs";

const script = document.currentScript as HTMLScriptElement | null;
setSandboxBase(sandboxBaseFromScript(script?.src, location.href));
window.PayJs = PayJs;
window.PayJsError = PayJsError;
