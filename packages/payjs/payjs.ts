/**
 * The PayJs class: the integrator's side of the card form. It owns the two frames of its
 * instance, listens only to them, aggregates their state into events, and runs pay().
 */
import { formEvent, formMessage } from "./card-form";
import { BANK_FIELDS, INVOICE_FIELDS, cardTokenizeDetails, pick, summary, unique, validateCardForm } from "./details";
import { LIBRARY_MESSAGES, PayJsError, errorFromResponse } from "./errors";
import { applyReportedHeight, createFrame, hasOwnHeight, withTimeout } from "./frame-element";
import { ATTEMPT_TIMEOUT_MS, MAX_ATTEMPTS, expectOk, requestJson } from "./http";
import { INPUT_TYPES, checkConstructorArgs, misuse } from "./options";
import {
  isTagged,
  tag,
  type FieldName,
  type FrameConfig,
  type FrameToParent,
  type ParentToFrame,
  type TokenizedCard,
} from "./protocol";
import type * as Public from "./types";
import type {
  CardFormMessage,
  ExtraDetails,
  FieldInputType,
  Invoice,
  PayJsEventName,
  PayJsHandler,
  PayJsOptions,
  PaymentMethod,
  TokenizeDetails,
} from "./types";
import { CUSTOMER_FIELDS, validateExtraDetails, type AvsSettings } from "../rules/validation";

export const FRAME_TIMEOUT_MS = 10_000;
/** How long a setTestPan/setTestCvv may wait for the form state to reflect it. */
const SET_VALUE_MS = 10_000;
/** How long the number frame may take to tokenize: its requests time out and retry on their own. */
const TOKENIZE_MS = MAX_ATTEMPTS * ATTEMPT_TIMEOUT_MS + 10_000;

/** card_form_incomplete is the live library's name for card_form_uncomplete: one list, so both fire in registration order. */
const EVENT_LISTS = {
  card_form_complete: "complete",
  card_form_uncomplete: "uncomplete",
  card_form_incomplete: "uncomplete",
} as const satisfies Record<PayJsEventName, "complete" | "uncomplete">;

let sandboxBase = "";

/** Where the sandbox is: browser.ts sets it from payjs.js's own script URL. */
export function setSandboxBase(url: string): void {
  sandboxBase = url.replace(/\/+$/, "");
}

export function sandboxBaseFromScript(src: string | undefined | null, fallback: string): string {
  if (!src) return fallback;
  const url = new URL(src, fallback);
  return (
    url.href.slice(0, url.href.length - url.pathname.length - url.search.length - url.hash.length) +
    url.pathname.replace(/\/payjs\.js$/, "").replace(/\/+$/, "")
  );
}

interface Frames {
  number: HTMLIFrameElement;
  cvv: HTMLIFrameElement;
}

interface PendingSet {
  field: FieldName;
  seq: number;
  resolve(): void;
  done: Promise<void>;
}

interface Waiter<T> {
  resolve(value: T): void;
  reject(error: PayJsError): void;
}

export class PayJs {
  readonly #token: string;
  readonly #options: PayJsOptions;
  readonly #instance = crypto.randomUUID();
  readonly #listeners: Record<"complete" | "uncomplete", ((message: CardFormMessage) => void)[]> = {
    complete: [],
    uncomplete: [],
  };
  #autosize: Record<FieldName, boolean> = { number: false, cvv: false };
  #frames: Frames | null = null;
  #ready: Promise<PayJsHandler> | null = null;
  #formReady = false;
  #state: CardFormMessage = formMessage("", "");
  #settings: Promise<AvsSettings> | null = null;
  #seq = 0;
  #applied: Record<FieldName, number> = { number: 0, cvv: 0 };
  #pendingSets: PendingSet[] = [];
  #tokenizing = new Map<string, Waiter<TokenizedCard>>();
  #paying = false;

  constructor(token: string, options: PayJsOptions = {}) {
    checkConstructorArgs(token, options);
    this.#token = token;
    this.#options = options;
  }

  on(event: "card_form_complete", callback: (message: CardFormMessage) => void): void;
  on(event: "card_form_uncomplete", callback: (message: CardFormMessage) => void): void;
  on(event: "card_form_incomplete", callback: (message: CardFormMessage) => void): void;
  on(event: string, callback: (message: CardFormMessage) => void): void {
    if (typeof callback !== "function") throw misuse("on(event, callback)", "a function", callback);
    const list = Object.hasOwn(EVENT_LISTS, event) ? EVENT_LISTS[event as PayJsEventName] : null;
    // As addEventListener does with a name it never fires: no error, and here a warning.
    if (!list) return console.warn(LIBRARY_MESSAGES.unknownEvent(String(event)));
    this.#listeners[list].push(callback);
  }

  showCardForm(): Promise<PayJsHandler> {
    this.#ready ??= this.#mount().catch((error: PayJsError) => {
      this.#unmount();
      this.#ready = null;
      throw error;
    });
    return this.#ready;
  }

  pay(extraDetails: ExtraDetails): Promise<Invoice> {
    if (!extraDetails || typeof extraDetails !== "object") throw misuse("pay(extraDetails)", "an object", extraDetails);
    return this.#exclusive(() => this.#pay(extraDetails as ExtraDetails & Record<string, unknown>));
  }

  tokenize(extraDetails: TokenizeDetails): Promise<PaymentMethod> {
    if (!extraDetails || typeof extraDetails !== "object")
      throw misuse("tokenize(extraDetails)", "an object", extraDetails);
    return this.#exclusive(async () => {
      const details = extraDetails as TokenizeDetails & Record<string, unknown>;
      await this.#prepare(details, "tokenize");
      return this.#tokenizeStep(details, crypto.randomUUID());
    });
  }

  /** One pay() or tokenize() at a time per instance: the card frames hold one card. */
  async #exclusive<T>(operation: () => Promise<T>): Promise<T> {
    if (this.#paying) throw new PayJsError("payment_in_progress", LIBRARY_MESSAGES.inProgress);
    this.#paying = true;
    try {
      return await operation();
    } finally {
      this.#paying = false;
    }
  }

  /** The checks before anything is sent: the form is there, pending test values are in, every input rule holds. */
  async #prepare(details: Record<string, unknown>, operation: "pay" | "tokenize"): Promise<void> {
    const isCard = details.method === "card";
    if (isCard && !this.#formReady) throw new PayJsError("form_not_ready", LIBRARY_MESSAGES.formNotReady);
    // A setTestPan/setTestCvv not yet reflected in the form state is part of this call.
    if (isCard) await Promise.all(this.#pendingSets.map((pending) => pending.done));
    if (details.validate === false) return;
    const fields = unique(validateExtraDetails(details, await this.#merchantSettings()));
    // tokenize() makes no invoice: a total is not needed (one given must still be a valid amount).
    if (operation === "tokenize" && details.total === undefined) delete fields.total;
    if (isCard) validateCardForm(fields, this.#state);
    if (Object.keys(fields).length > 0) throw new PayJsError("validation_error", summary(fields), { fields });
  }

  /** Stores the card (through the number frame) or the bank account: the payment method. */
  #tokenizeStep(details: Record<string, unknown>, idempotencyKey: string): Promise<PaymentMethod> {
    if (details.method === "card") return this.#tokenizeCard(details, idempotencyKey);
    return expectOk<PaymentMethod>(
      requestJson(this.#url("tokenize"), {
        method: "POST",
        idempotencyKey,
        body: {
          method: "bank",
          ...pick(details, CUSTOMER_FIELDS),
          ...pick(details, ["customer_id", ...BANK_FIELDS]),
        },
      }),
    );
  }

  async #pay(details: ExtraDetails & Record<string, unknown>): Promise<Invoice> {
    await this.#prepare(details, "pay");
    // One key for every step of this pay() call: a retried step replays instead of duplicating.
    const idempotencyKey = crypto.randomUUID();
    const paymentMethod = await this.#tokenizeStep(details, idempotencyKey);
    const invoice = await expectOk<Invoice>(
      requestJson(this.#url("invoice"), {
        method: "POST",
        idempotencyKey,
        body: { ...pick(details, INVOICE_FIELDS), payment_method_id: paymentMethod.id },
      }),
    );
    const paid = await requestJson(this.#url(`invoice/${encodeURIComponent(invoice.id)}/pay`), {
      method: "POST",
      idempotencyKey,
      body: { payment_method_id: paymentMethod.id },
    });
    if (paid.status === 200 && paid.body && typeof paid.body === "object") return paid.body as Invoice;
    throw errorFromResponse(paid.status, paid.body);
  }

  #url(path: string): string {
    return `${sandboxBase}/webpayment/${encodeURIComponent(this.#token)}/${path}`;
  }

  /** The merchant's address verification settings, which decide whether zip and street are required. */
  #merchantSettings(): Promise<AvsSettings> {
    this.#settings ??= expectOk<AvsSettings>(
      requestJson(`${sandboxBase}/payjs/config/${encodeURIComponent(this.#token)}`, { method: "GET" }),
    ).catch((error: PayJsError) => {
      this.#settings = null;
      throw error;
    });
    return this.#settings;
  }

  #tokenizeCard(details: Record<string, unknown>, idempotencyKey: string): Promise<TokenizedCard> {
    const frame = this.#frames?.number.contentWindow;
    if (!frame) return Promise.reject(new PayJsError("form_not_ready", LIBRARY_MESSAGES.formNotReady));
    const cardDetails = cardTokenizeDetails(details);
    const request = crypto.randomUUID();
    return withTimeout(
      new Promise<TokenizedCard>((resolve, reject) => {
        this.#tokenizing.set(request, { resolve, reject });
        this.#send("number", { type: "tokenize", request, idempotency_key: idempotencyKey, details: cardDetails });
      }),
      TOKENIZE_MS,
      () => this.#tokenizing.delete(request),
    );
  }

  #send(field: FieldName, message: ParentToFrame): void {
    const origin = new URL(sandboxBase || location.href).origin;
    this.#frames?.[field].contentWindow?.postMessage(tag(this.#instance, message), origin);
  }

  #setValue(field: FieldName, value: unknown): Promise<void> {
    if (typeof value !== "string")
      return Promise.reject(misuse(`setTest${field === "number" ? "Pan" : "Cvv"}`, "a string", value));
    if (!this.#frames) return Promise.reject(new PayJsError("form_not_ready", LIBRARY_MESSAGES.formNotReady));
    const seq = ++this.#seq;
    let resolve!: () => void;
    const reflected = new Promise<void>((r) => (resolve = r));
    const pending: PendingSet = { field, seq, resolve, done: Promise.resolve() };
    pending.done = withTimeout(reflected, SET_VALUE_MS, () => {
      this.#pendingSets = this.#pendingSets.filter((p) => p !== pending);
    });
    this.#pendingSets.push(pending);
    this.#send(field, { type: "set_value", value, seq });
    return pending.done;
  }

  #onState(state: CardFormMessage, applied: Record<FieldName, number>): void {
    const event = formEvent(this.#state, state);
    this.#state = state;
    this.#applied = {
      number: Math.max(this.#applied.number, applied.number),
      cvv: Math.max(this.#applied.cvv, applied.cvv),
    };
    for (const pending of this.#pendingSets) {
      if (this.#applied[pending.field] >= pending.seq) pending.resolve();
    }
    if (event)
      for (const callback of [...this.#listeners[EVENT_LISTS[event]]])
        callback({ ...state, number: { ...state.number }, cvv: { ...state.cvv } });
  }

  #onMessage = (event: MessageEvent) => {
    const frames = this.#frames;
    // Only this instance's own frames, from the sandbox origin: nothing else on the page can speak for them.
    if (!frames || event.origin !== new URL(sandboxBase || location.href).origin) return;
    if (event.source !== frames.number.contentWindow && event.source !== frames.cvv.contentWindow) return;
    if (!isTagged<FrameToParent>(event.data, this.#instance)) return;
    const message = event.data;
    const fromNumber = event.source === frames.number.contentWindow;
    switch (message.type) {
      case "ready":
        this.#readyFields.add(fromNumber ? "number" : "cvv");
        if (this.#readyFields.size === 2) this.#onBothReady?.();
        break;
      case "state":
        if (fromNumber) this.#onState(message.state, message.seq);
        break;
      case "resize":
        this.#onResize(fromNumber ? "number" : "cvv", message.height);
        break;
      case "tokenized":
        if (fromNumber) this.#tokenizing.get(message.request)?.resolve(message.payment_method);
        break;
      case "tokenize_failed":
        if (fromNumber) {
          const error =
            message.status === 0
              ? new PayJsError("network_error", LIBRARY_MESSAGES.network(sandboxBase))
              : errorFromResponse(message.status, message.error);
          this.#tokenizing.get(message.request)?.reject(error);
        }
        break;
    }
  };
  #readyFields = new Set<FieldName>();

  /** An auto-sized frame takes its content's height; a frame in a sized container keeps the container's. */
  #onResize(field: FieldName, height: unknown): void {
    const frame = this.#frames?.[field];
    if (frame && this.#autosize[field]) applyReportedHeight(frame, height);
  }
  #onBothReady: (() => void) | null = null;

  async #mount(): Promise<PayJsHandler> {
    const { number, cvv } = this.#options;
    if (!number || !cvv) throw new PayJsError("missing_container", LIBRARY_MESSAGES.missingOptions);
    const containers = { number: document.getElementById(number.id), cvv: document.getElementById(cvv.id) };
    for (const field of ["number", "cvv"] as const) {
      if (!containers[field])
        throw new PayJsError("missing_container", LIBRARY_MESSAGES.missingContainer(this.#options[field]!.id));
    }
    const settings = this.#merchantSettings();
    this.#readyFields.clear();
    const ready = new Promise<void>((resolve) => (this.#onBothReady = resolve));
    window.addEventListener("message", this.#onMessage);
    this.#frames = { number: this.#frame("number", containers.number!), cvv: this.#frame("cvv", containers.cvv!) };
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new PayJsError("frame_timeout", LIBRARY_MESSAGES.frameTimeout(FRAME_TIMEOUT_MS / 1000))),
        FRAME_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([Promise.all([ready, settings]), timeout]);
    } finally {
      clearTimeout(timer);
      this.#onBothReady = null;
    }
    this.#formReady = true;
    return {
      setTestPan: (pan: string) => this.#setValue("number", pan),
      setTestCvv: (value: string) => this.#setValue("cvv", value),
    };
  }

  #frame(field: FieldName, container: HTMLElement): HTMLIFrameElement {
    const options = this.#options[field]!;
    const autosize = !hasOwnHeight(container);
    this.#autosize[field] = autosize;
    const config: FrameConfig = {
      instance: this.#instance,
      field,
      token: this.#token,
      origin: location.origin,
      placeholder: options.placeholder,
      type: INPUT_TYPES.includes(options.type as FieldInputType) ? options.type : undefined,
      style: options.style,
      format: field === "number" ? this.#options.number!.format : undefined,
      autosize,
    };
    return createFrame(sandboxBase, config, container);
  }

  #unmount(): void {
    window.removeEventListener("message", this.#onMessage);
    this.#frames?.number.remove();
    this.#frames?.cvv.remove();
    this.#frames = null;
    this.#formReady = false;
  }
}

// The implementation must stay assignable to what /payjs.d.ts promises.
PayJs satisfies typeof Public.PayJs;
