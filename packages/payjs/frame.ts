/**
 * The script of the card frames (/payjs/frames/number.html and cvv.html), served from the
 * sandbox origin so the integrator's page can never read what is typed.
 *
 * The CVV frame hands its value to the number frame over the instance's BroadcastChannel; the
 * number frame holds both, reports the form state to the parent, and tokenizes on request.
 * Commands are accepted only from window.parent (and its origin); messages go only to it.
 */
import { cvvLength, detectBrand } from "../rules/card-rules";
import {
  caretAfterDigits,
  displayNumber,
  formMessage,
  MAX_CVV_LENGTH,
  sanitizeCvv,
  sanitizeNumber,
  sameMessage,
} from "./card-form";
import { LIBRARY_MESSAGES } from "./errors";
import { requestJson } from "./http";
import {
  channelName,
  decodeFrameConfig,
  isTagged,
  tag,
  type FrameConfig,
  type FrameToFrame,
  type FrameToParent,
  type ParentToFrame,
  type TokenizedCard,
} from "./protocol";
import { sanitizeStyle } from "./style";
import type { ApiErrorBody } from "../rules/codes";
import type { CardFormMessage, CardType, FieldInputType } from "./types";

/** The sandbox base URL: this page's address up to /payjs/frames/. */
function sandboxBase(): string {
  return location.href.slice(0, location.href.indexOf("/payjs/frames/"));
}

/** Only the parent's real origin may receive messages; Chromium tells it, else the parent's word. */
function parentOrigin(config: FrameConfig): string {
  const ancestors = (location as Location & { ancestorOrigins?: DOMStringList }).ancestorOrigins;
  return ancestors && ancestors.length > 0 ? ancestors[0]! : config.origin;
}

/** The integrator's style, sanitized here (never in the parent) and set through the CSSOM, never as markup. */
function applyStyle(input: HTMLInputElement, config: FrameConfig): void {
  const { declarations, dropped } = sanitizeStyle(config.style);
  for (const [property, value] of declarations) input.style.setProperty(property, value);
  for (const property of dropped) console.warn(LIBRARY_MESSAGES.styleDropped(config.field, property));
}

/**
 * Each input type as an input that keeps the formatting working: a type="number" input cannot
 * hold "4111 1111", so `number` is a text input with a numeric keyboard.
 */
function applyType(input: HTMLInputElement, type: FieldInputType | undefined): void {
  input.type = type === "text" || type === "password" ? type : type === "number" ? "text" : "tel";
  input.inputMode = "numeric";
  if (type === "number") input.pattern = "[0-9 ]*";
}

/**
 * Auto-sizing: the page and body take their content's height (not the frame's), so the input
 * keeps its styled height, and every change of it is reported to the parent.
 */
function reportHeight(toParent: (message: FrameToParent) => void): void {
  document.documentElement.classList.add("autosize");
  let last = -1;
  const report = () => {
    const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height === last || height <= 0) return;
    last = height;
    toParent({ type: "resize", height });
  };
  report();
  new ResizeObserver(report).observe(document.documentElement);
  // A frame inserted while hidden lays out when it is shown: its viewport resizes then.
  window.addEventListener("resize", report);
}

function start(): void {
  const config = decodeFrameConfig(location.hash);
  const input = document.querySelector("input");
  if (!config || !input || window.parent === window) return;
  const origin = parentOrigin(config);
  const channel = new BroadcastChannel(channelName(config.instance));
  const toParent = (message: FrameToParent) => window.parent.postMessage(tag(config.instance, message), origin);
  const toFrame = (message: FrameToFrame) => channel.postMessage(tag(config.instance, message));

  applyType(input, config.type);
  if (config.placeholder !== undefined) input.placeholder = config.placeholder;
  applyStyle(input, config);
  input.setAttribute("aria-label", config.field === "number" ? "Card number" : "CVV");
  input.autocomplete = config.field === "number" ? "cc-number" : "cc-csc";

  const field = config.field === "number" ? numberField(config, input, toParent, toFrame) : cvvField(input, toFrame);
  channel.onmessage = (event: MessageEvent) => {
    if (isTagged<FrameToFrame>(event.data, config.instance)) field.fromFrame(event.data);
  };
  window.addEventListener("message", (event) => {
    if (event.source !== window.parent || event.origin !== origin) return;
    if (isTagged<ParentToFrame>(event.data, config.instance)) field.fromParent(event.data);
  });
  toFrame({ type: "sync", from: config.field });
  if (config.autosize) reportHeight(toParent);
  toParent({ type: "ready", field: config.field });
}

interface Field {
  fromFrame(message: FrameToFrame): void;
  fromParent(message: ParentToFrame): void;
}

function numberField(
  config: FrameConfig,
  input: HTMLInputElement,
  toParent: (message: FrameToParent) => void,
  toFrame: (message: FrameToFrame) => void,
): Field {
  const format = config.format ?? "prettyFormat";
  let digits = "";
  let cvv = "";
  let brand: CardType | null = null;
  let focused = false;
  const seq = { number: 0, cvv: 0 };
  let reported: CardFormMessage | null = null;

  const render = (caretDigits: number | null) => {
    const shown = displayNumber(digits, format, focused);
    if (input.value !== shown) input.value = shown;
    if (caretDigits !== null && focused) {
      const at = caretAfterDigits(shown, caretDigits);
      input.setSelectionRange(at, at);
    }
  };
  const report = (force: boolean) => {
    const next = detectBrand(digits);
    if (next !== brand) {
      brand = next;
      toFrame({ type: "brand", card_type: brand });
    }
    const state = formMessage(digits, cvv);
    if (!force && reported && sameMessage(reported, state)) return;
    reported = state;
    toParent({ type: "state", state, seq: { ...seq } });
  };
  const setDigits = (value: string, caretDigits: number | null) => {
    digits = sanitizeNumber(value);
    render(caretDigits);
  };

  input.addEventListener("input", () => {
    // Keep the caret after the same number of digits it was after, whatever the formatting adds.
    const caret = input.selectionStart ?? input.value.length;
    const digitsBeforeCaret = sanitizeNumber(input.value.slice(0, caret)).length;
    setDigits(input.value, digitsBeforeCaret);
    report(false);
  });
  input.addEventListener("focus", () => {
    focused = true;
    if (format === "maskedFormat") render(digits.length);
  });
  input.addEventListener("blur", () => {
    focused = false;
    render(null);
  });

  const tokenize = async (message: Extract<ParentToFrame, { type: "tokenize" }>) => {
    const url = `${sandboxBase()}/webpayment/${encodeURIComponent(config.token)}/tokenize`;
    // The parent's details first: the card fields of this frame always win.
    const body = { ...message.details, method: "card", card_number: digits, card_cvv: cvv };
    try {
      const answer = await requestJson(url, { method: "POST", body, idempotencyKey: message.idempotency_key });
      const record = answer.body as Partial<TokenizedCard> & Partial<ApiErrorBody>;
      if (answer.status === 200 && record && typeof record.id === "string") {
        // The stored record: brand, last four and expiry, never the number or the CVV.
        toParent({ type: "tokenized", request: message.request, payment_method: record as TokenizedCard });
      } else {
        const error = record && typeof record.message === "string" ? (record as ApiErrorBody) : null;
        toParent({ type: "tokenize_failed", request: message.request, status: answer.status, error });
      }
    } catch {
      toParent({ type: "tokenize_failed", request: message.request, status: 0, error: null });
    }
  };

  return {
    fromFrame(message) {
      if (message.type === "cvv") {
        cvv = message.value;
        seq.cvv = Math.max(seq.cvv, message.seq);
        report(message.seq > 0);
      } else if (message.type === "sync" && message.from === "cvv") {
        toFrame({ type: "brand", card_type: brand });
      }
    },
    fromParent(message) {
      if (message.type === "set_value") {
        setDigits(message.value, null);
        seq.number = Math.max(seq.number, message.seq);
        report(true);
      } else if (message.type === "tokenize") {
        void tokenize(message);
      }
    },
  };
}

function cvvField(input: HTMLInputElement, toFrame: (message: FrameToFrame) => void): Field {
  let value = "";
  let brand: CardType | null = null;
  const apply = (raw: string, seq: number) => {
    value = sanitizeCvv(raw);
    if (input.value !== value) input.value = value;
    toFrame({ type: "cvv", value, seq });
  };
  input.addEventListener("input", () => apply(input.value, 0));
  return {
    fromFrame(message) {
      if (message.type === "brand") {
        brand = message.card_type;
        // What a person can type; a value already there is kept, and judged by the number frame.
        input.maxLength = brand === null ? MAX_CVV_LENGTH : cvvLength(brand);
      } else if (message.type === "sync" && message.from === "number") {
        toFrame({ type: "cvv", value, seq: 0 });
      }
    },
    fromParent(message) {
      if (message.type === "set_value") apply(message.value, message.seq);
    },
  };
}

start();
