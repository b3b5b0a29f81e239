import { describe } from "./errors";

/** Where the sandbox listens by default (`npm start`). */
export const DEFAULT_BASE_URL = "http://localhost:7290";
/** Per attempt: a request without an answer by then fails with `timeout` (and is retried). */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** Retries after a network error, a timeout, a 5xx or a short 429; all with the same Idempotency-Key. */
export const DEFAULT_MAX_RETRIES = 2;

export interface PaymentConfigurationOptions {
  /** The merchant's public web payments token. */
  webPaymentsToken?: string;
  /** The sandbox's address; default http://localhost:7290. */
  baseUrl?: string;
  timeoutMs?: number;
  maxRetries?: number;
}

/** The settings a PaymentApi reads once, when it is created. */
export interface ResolvedConfiguration {
  readonly webPaymentsToken: string;
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly maxRetries: number;
}

/**
 * The iOS SDK's PaymentConfiguration. `PaymentConfiguration.shared` holds the defaults every
 * new PaymentApi starts from; a client created earlier keeps the values it was created with.
 * @example
 * PaymentConfiguration.shared.webPaymentsToken = "sandbox_web_payments_token";
 * const api = new PaymentApi();
 */
export class PaymentConfiguration {
  /** The defaults of `new PaymentApi()`. */
  static readonly shared: PaymentConfiguration = new PaymentConfiguration();

  webPaymentsToken: string;
  baseUrl: string;
  timeoutMs: number;
  maxRetries: number;

  constructor(options: PaymentConfigurationOptions = {}) {
    if (typeof options !== "object" || options === null) {
      throw new TypeError(`PaymentConfiguration: expected an options object, got ${describe(options)}`);
    }
    this.webPaymentsToken = options.webPaymentsToken ?? "";
    this.baseUrl = options.baseUrl ?? DEFAULT_BASE_URL;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    // Checked now too, so a typo fails where it is made rather than at the first tokenize.
    resolve(this, { requireToken: false });
  }
}

const shown = (value: unknown): string => (typeof value === "number" ? String(value) : describe(value));

/** Checks the settings (misuse throws "expected X, got Y") and freezes a copy of them. */
export function resolve(
  configuration: PaymentConfiguration,
  { requireToken }: { requireToken: boolean },
): ResolvedConfiguration {
  const { webPaymentsToken, baseUrl, timeoutMs, maxRetries } = configuration;
  if (typeof webPaymentsToken !== "string" || (requireToken && webPaymentsToken.trim() === "")) {
    throw new TypeError(
      `PaymentApi: expected a web payments token, got ${webPaymentsToken === "" ? "an empty string" : describe(webPaymentsToken)}` +
        " — set PaymentConfiguration.shared.webPaymentsToken or pass { webPaymentsToken }",
    );
  }
  let url: URL;
  try {
    url = new URL(String(baseUrl));
  } catch {
    throw new TypeError(`PaymentConfiguration: expected baseUrl to be an http(s) URL, got ${describe(baseUrl)}`);
  }
  if (typeof baseUrl !== "string" || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new TypeError(`PaymentConfiguration: expected baseUrl to be an http(s) URL, got ${describe(baseUrl)}`);
  }
  if (typeof timeoutMs !== "number" || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new TypeError(`PaymentConfiguration: expected timeoutMs to be a positive number, got ${shown(timeoutMs)}`);
  }
  if (typeof maxRetries !== "number" || !Number.isInteger(maxRetries) || maxRetries < 0 || maxRetries > 10) {
    throw new TypeError(`PaymentConfiguration: expected maxRetries to be an integer 0..10, got ${shown(maxRetries)}`);
  }
  return Object.freeze({ webPaymentsToken, baseUrl: baseUrl.replace(/\/+$/, ""), timeoutMs, maxRetries });
}
