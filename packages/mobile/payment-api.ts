/**
 * The iOS SDK's PaymentApi: tokenizes a CreditCard or BankAccount straight to the sandbox with
 * the public web payments token (`POST {baseUrl}/webpayment/{token}/tokenize`, docs/mobile.md).
 * Only `fetch` is used, so it runs in Node, Bun, React Native and browsers.
 */
import { validateTokenizeInput } from "../rules/validation";
import { PaymentConfiguration, resolve, type ResolvedConfiguration } from "./configuration";
import { describe, isApiErrorCode, paymentError, type PaymentError } from "./errors";
import { BankAccount, CreditCard, propertyOf, wireBody } from "./payment-input";
import type { PaymentMethod } from "./payment-method";

/** What tokenize delivers, to the listener and as the Promise's value: a PaymentMethod or a typed error. */
export type TokenizeResponse =
  | { readonly ok: true; readonly paymentMethod: PaymentMethod; readonly error?: undefined }
  | { readonly ok: false; readonly error: PaymentError; readonly paymentMethod?: undefined };

/** The iOS completion: called exactly once, asynchronously, with the response. */
export type TokenizeListener = (response: TokenizeResponse) => void;

export interface TokenizeOptions {
  /** Cancels the request (and any retry): the response is then a `cancelled` error. */
  signal?: AbortSignal;
  /** Sent as `Idempotency-Key` on every attempt; default a fresh random key per tokenize call. */
  idempotencyKey?: string;
  /** Run the client-side input rules before sending (default true). */
  validate?: boolean;
}

export interface PaymentApiOptions {
  /** Settings for this client; default `PaymentConfiguration.shared` as it is now. */
  configuration?: PaymentConfiguration;
  /** Shorthand: the shared configuration with this token. */
  webPaymentsToken?: string;
}

/** Longest Retry-After the SDK waits out by itself; a longer one comes back as `rate_limited`. */
const MAX_RETRY_AFTER_SECONDS = 5;
const BACKOFF_BASE_MS = 250;
const BACKOFF_MAX_MS = 2_000;

const RETRYABLE_STATUS = new Set([500, 502, 503, 504]);

interface Attempt {
  response: TokenizeResponse;
  /** Worth another attempt with the same Idempotency-Key. */
  retry?: boolean;
  /** How long to wait first (a Retry-After); default exponential backoff. */
  waitMs?: number;
}

const success = (paymentMethod: PaymentMethod): TokenizeResponse => Object.freeze({ ok: true, paymentMethod });
const failure = (error: PaymentError): TokenizeResponse => Object.freeze({ ok: false, error });

/** Field errors keyed by the input's property names ("card_number" → "cardNumber"). */
function byProperty(errors: unknown): Record<string, string[]> | undefined {
  if (typeof errors !== "object" || errors === null) return undefined;
  const fields: Record<string, string[]> = {};
  for (const [field, messages] of Object.entries(errors)) {
    if (Array.isArray(messages)) fields[propertyOf(field)] = messages.map(String);
  }
  return fields;
}

function newIdempotencyKey(): string {
  const cryptoApi = (globalThis as { crypto?: Crypto }).crypto;
  if (cryptoApi?.randomUUID) return cryptoApi.randomUUID();
  // React Native without a crypto polyfill: unique enough for one device's retries.
  return `mobile-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
}

/** Waits, unless the signal fires first. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((done) => {
    if (signal?.aborted) return done();
    const timer = setTimeout(finish, ms);
    function finish() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", finish);
      done();
    }
    signal?.addEventListener("abort", finish, { once: true });
  });
}

/** Exponential backoff with jitter: 125–250 ms, 250–500 ms, ... capped at 2 s. */
function backoff(attempt: number): number {
  const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** attempt);
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/**
 * A client of the sandbox's public tokenize endpoint.
 * @example
 * const api = new PaymentApi({ webPaymentsToken: "sandbox_web_payments_token" });
 * const response = await api.tokenize(CreditCard.testCreditCard());
 * if (response.ok) await myBackend.charge(response.paymentMethod.id);
 */
export class PaymentApi {
  /** The settings this client was created with (frozen). */
  readonly configuration: ResolvedConfiguration;

  constructor(options: PaymentApiOptions = {}) {
    if (typeof options !== "object" || options === null) {
      throw new TypeError(`PaymentApi: expected { configuration } or { webPaymentsToken }, got ${describe(options)}`);
    }
    const { configuration, webPaymentsToken } = options;
    if (configuration !== undefined && !(configuration instanceof PaymentConfiguration)) {
      throw new TypeError(
        `PaymentApi: expected configuration to be a PaymentConfiguration, got ${describe(configuration)}`,
      );
    }
    if (configuration !== undefined && webPaymentsToken !== undefined) {
      throw new TypeError("PaymentApi: expected { configuration } or { webPaymentsToken }, got both");
    }
    const base = configuration ?? PaymentConfiguration.shared;
    this.configuration = resolve(
      webPaymentsToken === undefined ? base : Object.assign(Object.create(base), { webPaymentsToken }),
      { requireToken: true },
    );
  }

  /**
   * Tokenizes a card or bank account. The listener (optional) and the returned Promise get the
   * same response: `{ ok: true, paymentMethod }` or `{ ok: false, error }`. Expected failures
   * (invalid input, an unknown token, network down) are values; passing something that is not a
   * CreditCard or BankAccount throws a TypeError. If the listener throws, the Promise rejects
   * with that error.
   * @example
   * api.tokenize(card, (response) => {
   *   if (response.ok) sendToBackend(response.paymentMethod.id);
   *   else showError(response.error.message, response.error.fields);
   * });
   */
  tokenize(
    input: CreditCard | BankAccount,
    listener?: TokenizeListener,
    options: TokenizeOptions = {},
  ): Promise<TokenizeResponse> {
    if (!(input instanceof CreditCard) && !(input instanceof BankAccount)) {
      throw new TypeError(`tokenize: expected a CreditCard or a BankAccount, got ${describe(input)}`);
    }
    if (listener !== undefined && typeof listener !== "function") {
      throw new TypeError(`tokenize: expected the listener to be a function, got ${describe(listener)}`);
    }
    if (typeof options !== "object" || options === null) {
      throw new TypeError(`tokenize: expected an options object, got ${describe(options)}`);
    }
    if (
      options.idempotencyKey !== undefined &&
      (typeof options.idempotencyKey !== "string" || !options.idempotencyKey)
    ) {
      throw new TypeError(
        `tokenize: expected idempotencyKey to be a non-empty string, got ${describe(options.idempotencyKey)}`,
      );
    }
    const body = wireBody(input);
    return this.run(body, options).then((response) => {
      listener?.(response);
      return response;
    });
  }

  private async run(body: Record<string, unknown>, options: TokenizeOptions): Promise<TokenizeResponse> {
    if (options.validate !== false) {
      const errors = validateTokenizeInput(body);
      const fields = byProperty(errors)!;
      const first = Object.values(fields)[0]?.[0];
      if (first !== undefined) return failure(paymentError("validation_error", first, { fields }));
    }
    const key = options.idempotencyKey ?? newIdempotencyKey();
    const json = JSON.stringify(body);
    for (let attempt = 0; ; attempt++) {
      if (options.signal?.aborted) return failure(paymentError("cancelled", "The tokenize request was cancelled."));
      const result = await this.attempt(json, key, options.signal);
      if (!result.retry || attempt >= this.configuration.maxRetries) return result.response;
      await sleep(result.waitMs ?? backoff(attempt), options.signal);
    }
  }

  /** One HTTP request, its answer read under the same timeout. */
  private async attempt(json: string, idempotencyKey: string, signal: AbortSignal | undefined): Promise<Attempt> {
    const { baseUrl, webPaymentsToken, timeoutMs } = this.configuration;
    const url = `${baseUrl}/webpayment/${encodeURIComponent(webPaymentsToken)}/tokenize`;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const cancel = () => controller.abort();
    if (signal?.aborted) controller.abort();
    signal?.addEventListener("abort", cancel, { once: true });
    let status = 0;
    let requestId: string | undefined;
    let retryAfterSeconds: number | undefined;
    let text: string;
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json", "idempotency-key": idempotencyKey },
        body: json,
        signal: controller.signal,
      });
      status = response.status;
      requestId = response.headers.get("x-request-id") ?? undefined;
      const retryAfter = Number(response.headers.get("retry-after"));
      if (response.headers.has("retry-after") && Number.isFinite(retryAfter)) retryAfterSeconds = retryAfter;
      text = await response.text();
    } catch (cause) {
      if (signal?.aborted)
        return { response: failure(paymentError("cancelled", "The tokenize request was cancelled.")) };
      if (timedOut) {
        const message = `The sandbox at ${baseUrl} did not answer within ${timeoutMs} ms.`;
        return { response: failure(paymentError("timeout", message)), retry: true };
      }
      const reason = cause instanceof Error ? cause.message : String(cause);
      const message = `Could not reach the sandbox at ${baseUrl}: ${reason}`;
      return {
        response: failure(paymentError("network_error", message, { status: status || undefined })),
        retry: true,
      };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", cancel);
    }
    return this.interpret(status, text, { requestId, retryAfterSeconds });
  }

  private interpret(
    status: number,
    text: string,
    { requestId, retryAfterSeconds }: { requestId?: string; retryAfterSeconds?: number },
  ): Attempt {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    const record = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : undefined;
    const retryable = RETRYABLE_STATUS.has(status);
    if (status >= 200 && status < 300) {
      if (record && typeof record.id === "string" && record.id !== "") {
        return { response: success(record as unknown as PaymentMethod) };
      }
      const message = `The sandbox answered ${status} without a payment method.`;
      return { response: failure(paymentError("invalid_response", message, { status, requestId })) };
    }
    if (!record || !isApiErrorCode(record.code)) {
      const message = `The sandbox answered ${status} with an unexpected body${text ? "" : " (empty)"}.`;
      return { response: failure(paymentError("invalid_response", message, { status, requestId })), retry: retryable };
    }
    const message = typeof record.message === "string" ? record.message : `The sandbox answered ${status}.`;
    const error = paymentError(record.code, message, {
      status,
      requestId,
      retryAfterSeconds,
      fields: record.code === "validation_error" ? byProperty(record.errors) : undefined,
    });
    if (record.code === "rate_limited") {
      const seconds = retryAfterSeconds ?? 1;
      return { response: failure(error), retry: seconds <= MAX_RETRY_AFTER_SECONDS, waitMs: seconds * 1000 };
    }
    return { response: failure(error), retry: retryable };
  }
}
