/**
 * One typed configuration, read once at start: documented defaults, overridden by
 * PAYSANDBOX_* environment variables, overridden by command-line flags. The flags and variables
 * are read in src/entry/cli.ts; this module holds the type, its defaults and what lower layers
 * ask of it (where the database is, the public URL).
 */
export interface Config {
  /** Interface to listen on. */
  host: string;
  /** TCP port; 0 picks a free one. */
  port: number;
  /** SQLite file, ":memory:", or a postgres:// URL (see {@link databaseTarget}). */
  dbPath: string;
  /** The address integrators reach the sandbox at (script tags, hosted links); derived from host and port when empty. */
  publicUrl: string;
  /** Relay receipts through this SMTP server as well as the outbox (smtp://host:port). */
  smtpUrl: string;
  /** Web payments token of the default merchant; "" = random, kept in the database (always so beyond loopback). */
  defaultWebPaymentsToken: string;
  /** API key of the default merchant; "" = random, kept in the database (always so beyond loopback). */
  defaultApiKey: string;
  /** Allow /_sandbox routes and the dashboard from non-loopback clients (--allow-remote-sandbox). */
  allowRemote: boolean;
  /** Extra Host names (NAME or NAME:PORT) the sandbox answers besides loopback and its own addresses. */
  allowHost: string[];
  /** Believe X-Forwarded-For / Forwarded / X-Forwarded-Host from the proxy in front; ignored (and distrusted) otherwise. */
  trustProxy: boolean;
  /** Webhook targets beyond loopback: HOST, HOST:PORT, *.DOMAIN, or * for any. */
  webhookAllow: string[];
  /** E-mail recipients --smtp relays to: ADDRESS, @DOMAIN, or * for any. Everything still reaches the outbox. */
  smtpAllow: string[];
  /** How many merchants POST /_sandbox/merchants may create in one database. */
  maxMerchants: number;
  /** Requests per minute for public routes per token and merchant routes per key, e.g. "10/150"; empty = off. */
  rateLimit: string;
  /** Fraction (0..1) of requests that fail with a 500 or stall, for testing integrator retries; 0 = off. */
  chaos: number;
  /** Rebuild payjs.js when its sources change. */
  dev: boolean;
  /** Milliseconds a webhook receiver has to answer before the attempt counts as failed. */
  webhookTimeoutMs: number;
  /** Errors only on stderr: no informational lines (webhook attempts, e-mail relays, request lines). */
  quiet: boolean;
  /**
   * One stderr line per request (method, path, status, time). Off by default: under load a line per
   * request was a measurable share of a charge's CPU (README "Performance"). Errors and 5xx always log.
   */
  logRequests: boolean;
  /** Delete the SQLite database file before starting (refused on PostgreSQL). */
  reset: boolean;
  /**
   * A fixture document (JSON, docs/testing.md) applied to the default merchant at start, once: a
   * start with the same document finds it applied and changes nothing. "" = none.
   */
  fixtures: string;
  /** Print one JSON line when listening instead of the banner, for tools that start the sandbox. */
  readyJson: boolean;
  /** Stop when standard input closes: the process that started the sandbox is gone. */
  stopWithStdin: boolean;
}

export const DEFAULT_CONFIG: Config = {
  host: "127.0.0.1",
  port: 7290,
  dbPath: "./.paysandbox/sandbox.sqlite",
  publicUrl: "",
  smtpUrl: "",
  defaultWebPaymentsToken: "sandbox_web_payments_token",
  defaultApiKey: "sandbox_api_key",
  allowRemote: false,
  allowHost: [],
  trustProxy: false,
  webhookAllow: [],
  smtpAllow: [],
  maxMerchants: 1000,
  rateLimit: "",
  chaos: 0,
  dev: false,
  webhookTimeoutMs: 10_000,
  quiet: false,
  logRequests: false,
  reset: false,
  fixtures: "",
  readyJson: false,
  stopWithStdin: false,
};

/** A flag, environment variable or --db value the sandbox cannot start with; its message says why. */
export class ConfigError extends Error {}

/** The documented keys of the default merchant on loopback; never used when listening beyond it. */
export const WELL_KNOWN_KEYS = {
  apiKey: DEFAULT_CONFIG.defaultApiKey,
  webPaymentsToken: DEFAULT_CONFIG.defaultWebPaymentsToken,
} as const;

/** Where the data lives: a SQLite file (or ":memory:"), or a PostgreSQL database shared by several processes. */
export type DatabaseTarget =
  | { kind: "sqlite"; path: string }
  | {
      kind: "postgres";
      /** The URL as given (with its password, if any): only for connecting. */
      url: string;
      /** The URL without its password, for the banner, the ready line and messages. */
      display: string;
    };

/** The query parameters a postgres:// URL may carry, with their allowed values. */
const POSTGRES_PARAMETERS: Record<string, readonly string[]> = {
  sslmode: ["disable", "prefer", "require", "verify-ca", "verify-full"],
};

/** A URL without its password (user, host, port, database and parameters kept). */
export function withoutPassword(url: URL): string {
  const copy = new URL(url.href);
  copy.password = "";
  return copy.href;
}

/**
 * What `--db` (or PAYSANDBOX_DB) names. `:memory:` and paths are SQLite; postgres:// and
 * postgresql:// URLs are PostgreSQL. Anything else that looks like a URL (`mysql://…`,
 * `sqlite://…`, `file:…`) is refused rather than taken as a file called "mysql:", and so is a
 * PostgreSQL URL without a host or a database. Messages never show a password.
 */
export function databaseTarget(value: string): DatabaseTarget {
  const trimmed = value.trim();
  if (trimmed === "") throw new ConfigError('--db needs a SQLite file, ":memory:" or a postgres:// URL; got ""');
  if (trimmed === ":memory:") return { kind: "sqlite", path: trimmed };
  const scheme = /^([a-z][a-z0-9+.-]+):/i.exec(trimmed)?.[1]?.toLowerCase();
  if (scheme === undefined) return { kind: "sqlite", path: value };
  if (scheme !== "postgres" && scheme !== "postgresql") {
    const hint =
      scheme === "sqlite" || scheme === "file"
        ? " For SQLite give the file's path itself (e.g. --db ./data/sandbox.sqlite)."
        : " For a file whose name has a colon, write it as a path (./NAME).";
    throw new ConfigError(
      `--db ${JSON.stringify(safeDisplay(trimmed))}: ${scheme}: is not a database paysandbox runs on; --db takes a SQLite file, ":memory:" or postgres://USER@HOST:PORT/DATABASE.${hint}`,
    );
  }
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw new ConfigError(
      `--db ${JSON.stringify(safeDisplay(trimmed))} is not a valid URL; expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`,
    );
  }
  const display = withoutPassword(url);
  const problem = (text: string) =>
    new ConfigError(`--db ${display}: ${text}; expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`);
  if (!trimmed.slice(scheme.length).startsWith("://")) throw problem("the host is missing");
  if (url.hostname === "") throw problem("the host is missing");
  const database = decodeURIComponent(url.pathname.replace(/^\//, ""));
  if (database === "") throw problem("the database name is missing");
  if (database.includes("/")) throw problem(`"${database}" is not a database name`);
  if (url.hash) throw problem("a #fragment means nothing here");
  for (const [name, setting] of url.searchParams) {
    const allowed = POSTGRES_PARAMETERS[name];
    if (!allowed)
      throw problem(`unknown parameter ${name} (supported: ${Object.keys(POSTGRES_PARAMETERS).join(", ")})`);
    if (!allowed.includes(setting)) throw problem(`${name} must be one of ${allowed.join(", ")}, got "${setting}"`);
  }
  return { kind: "postgres", url: trimmed, display };
}

/** A value that may be a URL with a password, for a message: the password replaced. */
function safeDisplay(value: string): string {
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@\s]*):[^@/\s]*@/i, "$1:***@");
}

/** The public base URL: the configured one, or http://host:port. */
export function publicUrlOf(config: Config, port: number = config.port): string {
  if (config.publicUrl) return config.publicUrl.replace(/\/+$/, "");
  // Integrators type localhost; 127.0.0.1 is what we listen on by default.
  const host = ["0.0.0.0", "::", "127.0.0.1"].includes(config.host) ? "localhost" : config.host;
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}
