/**
 * The card frames as elements of the integrator's page: each iframe, how tall it is, and how long
 * the parent waits for one to answer.
 */
import { LIBRARY_MESSAGES, PayJsError } from "./errors";
import { FRAME_PATHS, encodeFrameConfig, type FrameConfig } from "./protocol";

/** An auto-sized frame's height until it reports its own (about a default input's). */
const PROVISIONAL_HEIGHT_PX = 40;
/** A reported height beyond this is not an input's: ignored. */
const MAX_FRAME_HEIGHT_PX = 2000;

/**
 * True when the container's height does not come from its content (a height of its own, or a
 * flex or grid stretch): a child of height 100% then has a height. An unsized or hidden
 * container gets a frame sized to its input instead.
 */
export function hasOwnHeight(container: HTMLElement): boolean {
  const probe = document.createElement("div");
  probe.style.cssText = "display:block;height:100%;min-height:0;margin:0;padding:0;border:0";
  container.replaceChildren(probe);
  const sized = probe.getBoundingClientRect().height > 0;
  probe.remove();
  return sized;
}

/** The field's iframe, loaded from the sandbox with its config, as the container's only child. */
export function createFrame(sandboxBase: string, config: FrameConfig, container: HTMLElement): HTMLIFrameElement {
  const field = config.field;
  const frame = document.createElement("iframe");
  frame.src = sandboxBase + FRAME_PATHS[field] + encodeFrameConfig(config);
  frame.title = field === "number" ? "Secure card number field" : "Secure CVV field";
  frame.name = `payjs-${field}-${config.instance}`;
  frame.setAttribute("scrolling", "no");
  frame.setAttribute("allowtransparency", "true");
  frame.style.cssText = `border:0;width:100%;display:block;background:transparent;height:${config.autosize ? `${PROVISIONAL_HEIGHT_PX}px` : "100%"}`;
  container.replaceChildren(frame);
  return frame;
}

/** Sets an auto-sized frame to the height its content reports, if that is an input's height. */
export function applyReportedHeight(frame: HTMLIFrameElement, height: unknown): void {
  if (typeof height !== "number" || !Number.isFinite(height) || height <= 0 || height > MAX_FRAME_HEIGHT_PX) return;
  frame.style.height = `${Math.ceil(height)}px`;
}

/** The promise, or frame_timeout once ms pass without it settling; cleanup runs either way. */
export function withTimeout<T>(promise: Promise<T>, ms: number, cleanup: () => void): Promise<T> {
  let timer: ReturnType<typeof setTimeout>;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new PayJsError("frame_timeout", LIBRARY_MESSAGES.frameNoAnswer)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => {
    clearTimeout(timer);
    cleanup();
  });
}
