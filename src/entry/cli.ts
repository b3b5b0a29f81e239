/**
 * The command line: the flags and PAYSANDBOX_* environment variables that make a {@link Config}
 * (src/lib/config.ts holds the type and its defaults), checked once at start, and `--help`.
 *
 * Flags are split by `node:util`'s parseArgs (its tokens, in order, so a later flag overrides an
 * earlier one and list flags add up); what each value means and which values are refused is
 * written here, with messages that name the flag and say what it expects.
 *
 * @example
 * const config = loadConfig(process.argv.slice(2), process.env); // throws ConfigError
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { ConfigError, DEFAULT_CONFIG, databaseTarget, type Config } from "../lib/config";
import { isLoopbackBind } from "../lib/net";

export { ConfigError } from "../lib/config";

interface Option {
  key: keyof Config;
  flag: string;
  env: string;
  kind: "string" | "number" | "boolean" | "list";
  help: string;
  /** Older spellings still accepted. */
  aliases?: string[];
}

export const OPTIONS: readonly Option[] = [
  { key: "port", flag: "--port", env: "PAYSANDBOX_PORT", kind: "number", help: "TCP port (0 = any free port)" },
  { key: "host", flag: "--host", env: "PAYSANDBOX_HOST", kind: "string", help: "interface to listen on" },
  {
    key: "dbPath",
    flag: "--db",
    env: "PAYSANDBOX_DB",
    kind: "string",
    help: "SQLite file, :memory:, or postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE for a shared sandbox",
  },
  {
    key: "publicUrl",
    flag: "--public-url",
    env: "PAYSANDBOX_PUBLIC_URL",
    kind: "string",
    help: "address integrators use (default http://HOST:PORT)",
  },
  {
    key: "smtpUrl",
    flag: "--smtp",
    env: "PAYSANDBOX_SMTP_URL",
    kind: "string",
    help: "also relay e-mail to smtp://host:port",
  },
  {
    key: "defaultWebPaymentsToken",
    flag: "--web-payments-token",
    env: "PAYSANDBOX_WEB_PAYMENTS_TOKEN",
    kind: "string",
    help: "default merchant's web payments token",
  },
  {
    key: "defaultApiKey",
    flag: "--api-key",
    env: "PAYSANDBOX_API_KEY",
    kind: "string",
    help: "default merchant's API key",
  },
  {
    key: "allowRemote",
    flag: "--allow-remote-sandbox",
    env: "PAYSANDBOX_ALLOW_REMOTE_SANDBOX",
    kind: "boolean",
    help: "serve /_sandbox and the dashboard to non-loopback clients",
    aliases: ["--allow-remote"],
  },
  {
    key: "allowHost",
    flag: "--allow-host",
    env: "PAYSANDBOX_ALLOW_HOST",
    kind: "list",
    help: "also answer this Host name (NAME or NAME:PORT; repeat or comma-separate)",
  },
  {
    key: "trustProxy",
    flag: "--trust-proxy",
    env: "PAYSANDBOX_TRUST_PROXY",
    kind: "boolean",
    help: "believe X-Forwarded-For/-Host and Forwarded from a proxy in front",
  },
  {
    key: "webhookAllow",
    flag: "--webhook-allow",
    env: "PAYSANDBOX_WEBHOOK_ALLOW",
    kind: "list",
    help: "webhook targets beyond loopback: HOST, HOST:PORT, *.DOMAIN or *",
  },
  {
    key: "smtpAllow",
    flag: "--smtp-allow",
    env: "PAYSANDBOX_SMTP_ALLOW",
    kind: "list",
    help: "recipients --smtp relays to besides reserved test domains: ADDRESS, @DOMAIN or *",
  },
  {
    key: "maxMerchants",
    flag: "--max-merchants",
    env: "PAYSANDBOX_MAX_MERCHANTS",
    kind: "number",
    help: "merchants POST /_sandbox/merchants may create",
  },
  {
    key: "rateLimit",
    flag: "--rate-limit",
    env: "PAYSANDBOX_RATE_LIMIT",
    kind: "string",
    help: 'requests/minute: "PUBLIC/MERCHANT", e.g. 10/150',
  },
  {
    key: "chaos",
    flag: "--chaos",
    env: "PAYSANDBOX_CHAOS",
    kind: "number",
    help: "fraction of requests to fail (0..1)",
  },
  {
    key: "dev",
    flag: "--dev",
    env: "PAYSANDBOX_DEV",
    kind: "boolean",
    help: "rebuild payjs.js when its sources change",
  },
  {
    key: "webhookTimeoutMs",
    flag: "--webhook-timeout-ms",
    env: "PAYSANDBOX_WEBHOOK_TIMEOUT_MS",
    kind: "number",
    help: "how long a webhook receiver has to answer",
  },
  { key: "quiet", flag: "--quiet", env: "PAYSANDBOX_QUIET", kind: "boolean", help: "errors only on stderr" },
  {
    key: "logRequests",
    flag: "--log-requests",
    env: "PAYSANDBOX_LOG_REQUESTS",
    kind: "boolean",
    help: "log every request: method, path, status, time",
  },
  {
    key: "reset",
    flag: "--reset",
    env: "PAYSANDBOX_RESET",
    kind: "boolean",
    help: "start with a fresh SQLite file (refused for a postgres:// database: drop and re-create it instead)",
  },
  {
    key: "fixtures",
    flag: "--fixtures",
    env: "PAYSANDBOX_FIXTURES",
    kind: "string",
    help: "apply this fixture document (JSON) to the default merchant at start, once (docs/testing.md)",
  },
  {
    key: "readyJson",
    flag: "--ready-json",
    env: "PAYSANDBOX_READY_JSON",
    kind: "boolean",
    help: "print one JSON line when listening (url, keys, pid) instead of the banner",
  },
  {
    key: "stopWithStdin",
    flag: "--stop-with-stdin",
    env: "PAYSANDBOX_STOP_WITH_STDIN",
    kind: "boolean",
    help: "stop when standard input closes (the starting process is gone)",
  },
];

/** Every flag (and old spelling) by its name without dashes, as parseArgs reports it. */
const BY_NAME = new Map<string, Option>(
  OPTIONS.flatMap((option) => [option.flag, ...(option.aliases ?? [])].map((flag) => [flag.slice(2), option] as const)),
);

/** parseArgs' view of the flags: booleans may still carry a value (--log-requests=off). */
const PARSE_OPTIONS: ParseArgsConfig["options"] = Object.fromEntries(
  [...BY_NAME].map(([name, option]) => [name, { type: option.kind === "boolean" ? "boolean" : "string" }]),
);

/** A Host allowlist entry: a DNS name or IP literal ([v6] in brackets), with an optional port. */
const HOST_ENTRY =
  /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;
/** A webhook allowlist entry: a host as above, a *.domain wildcard, or * alone. */
const WEBHOOK_ENTRY = /^(?:\*|\*\.[a-z0-9.-]+|[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;
/** An SMTP allowlist entry: an address, @domain, or * alone. */
const SMTP_ENTRY = /^(?:\*|@[a-z0-9.-]+\.[a-z]{2,}|[^\s@,]+@[a-z0-9.-]+\.[a-z]{2,})$/i;

/** What a boolean flag (`--log-requests=off`) or its environment variable may say; anything else stops start-up. */
const TRUE_WORDS = ["1", "true", "yes", "on"];
const FALSE_WORDS = ["0", "false", "no", "off", ""];

function convert(option: Option, raw: string): string | number | boolean | string[] {
  if (option.kind === "list")
    return raw
      .split(",")
      .map((part) => part.trim())
      .filter(Boolean);
  if (option.kind === "boolean") {
    const word = raw.trim().toLowerCase();
    if (TRUE_WORDS.includes(word)) return true;
    if (FALSE_WORDS.includes(word)) return false;
    throw new ConfigError(
      `${option.flag} (${option.env}) is on or off: expects one of ${[...TRUE_WORDS, ...FALSE_WORDS.filter(Boolean)].join(", ")}, got "${raw}"`,
    );
  }
  if (option.kind === "number") {
    const value = Number(raw);
    if (raw.trim() === "" || !Number.isFinite(value)) {
      throw new ConfigError(`${option.flag} expects a number, got "${raw}"`);
    }
    return value;
  }
  return raw;
}

/** Reads env then flags over the defaults. Unknown flags are an error. */
export function loadConfig(argv: readonly string[], env: Record<string, string | undefined>): Config {
  const config: Record<string, unknown> = { ...DEFAULT_CONFIG };
  const listFromFlags = new Set<string>();
  const given = new Set<string>();
  for (const option of OPTIONS) {
    const raw = env[option.env];
    if (raw !== undefined) {
      config[option.key] = convert(option, raw);
      given.add(option.key);
    }
  }
  const { tokens } = parseArgs({
    args: [...argv],
    options: PARSE_OPTIONS,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  for (const token of tokens) {
    // A bare word or "--" is no option either.
    if (token.kind !== "option")
      throw new ConfigError(`unknown option ${token.kind === "positional" ? token.value : "--"} (see --help)`);
    const flag = token.rawName;
    const option = BY_NAME.get(token.name);
    // Named as typed: "-ab" (which parseArgs splits into -a and -b), "--prot" of "--prot=1".
    if (!option) throw new ConfigError(`unknown option ${argv[token.index]!.split("=")[0]} (see --help)`);
    given.add(option.key);
    if (option.kind === "boolean" && token.value === undefined) {
      config[option.key] = true;
      continue;
    }
    if (token.value === undefined) throw new ConfigError(`${flag} needs a value`);
    const converted = convert(option, token.value);
    // A list flag may be given several times; env values are replaced, earlier flags kept.
    if (option.kind === "list") {
      const seen = listFromFlags.has(option.key) ? (config[option.key] as string[]) : [];
      listFromFlags.add(option.key);
      config[option.key] = [...seen, ...(converted as string[])];
    } else config[option.key] = converted;
  }
  const result = config as unknown as Config;
  if (!Number.isInteger(result.port) || result.port < 0 || result.port > 65535) {
    throw new ConfigError(`--port must be 0..65535, got ${result.port}`);
  }
  if (result.chaos < 0 || result.chaos > 1)
    throw new ConfigError(`--chaos must be between 0 and 1, got ${result.chaos}`);
  if (result.rateLimit.trim() !== "" && !/^(0|off|[1-9]\d*\s*\/\s*[1-9]\d*)$/i.test(result.rateLimit.trim()))
    throw new ConfigError(
      `--rate-limit expects "PUBLIC/MERCHANT" requests per minute, e.g. 10/150; got "${result.rateLimit}"`,
    );
  // The token is a path segment of every /webpayment/{token}/… URL and the key a Bearer credential
  // (RFC 6750's b64token): other characters would make keys no client can send.
  if (result.defaultWebPaymentsToken !== "" && !/^[A-Za-z0-9._~-]{1,256}$/.test(result.defaultWebPaymentsToken))
    throw new ConfigError(
      `--web-payments-token may hold letters, digits and . _ ~ - (at most 256), as it is part of every /webpayment/{token}/ URL; got "${result.defaultWebPaymentsToken}"`,
    );
  if (result.defaultApiKey !== "" && !/^[A-Za-z0-9._~+/-]+=*$/.test(result.defaultApiKey))
    throw new ConfigError(
      `--api-key may hold letters, digits and . _ ~ + / - (then = padding), as it is sent as "Authorization: Bearer <key>"; got "${result.defaultApiKey}"`,
    );
  if (result.defaultApiKey.length > 256)
    throw new ConfigError(`--api-key may be at most 256 characters long; got ${result.defaultApiKey.length}`);
  const publicUrlProblem = result.publicUrl === "" ? undefined : problemOfPublicUrl(result.publicUrl);
  if (publicUrlProblem)
    throw new ConfigError(
      `--public-url expects the address integrators open, http(s)://HOST[:PORT][/PATH] (e.g. https://sandbox.team.internal); ${publicUrlProblem}, got "${result.publicUrl}"`,
    );
  if (result.smtpUrl !== "" && !/^smtps?:\/\/[^\s/?#]+(:\d+)?\/?$/i.test(result.smtpUrl))
    throw new ConfigError(`--smtp expects smtp://host:port (or smtps://), got "${result.smtpUrl}"`);
  // Beyond loopback the documented keys would open the API to the whole network: the default
  // merchant gets random keys kept in the database ("" = random), and asking for them is an error.
  if (!isLoopbackBind(result.host)) {
    for (const [key, flag] of [
      ["defaultApiKey", "--api-key"],
      ["defaultWebPaymentsToken", "--web-payments-token"],
    ] as const) {
      if (result[key] !== DEFAULT_CONFIG[key]) continue;
      if (given.has(key))
        throw new ConfigError(
          `${flag} ${DEFAULT_CONFIG[key]} is the documented key; with --host ${result.host} the sandbox listens beyond loopback, where anyone on the network would know it. Leave ${flag} out (random keys are made and kept in the database) or choose your own.`,
        );
      result[key] = "";
    }
  }
  const database = databaseTarget(result.dbPath);
  if (database.kind === "postgres" && result.reset)
    throw new ConfigError(
      `--reset deletes a SQLite file; it does not empty the PostgreSQL database ${database.display}, which other sandbox processes may share. To start afresh, drop and re-create it (dropdb, createdb), then start without --reset.`,
    );
  if (!Number.isInteger(result.maxMerchants) || result.maxMerchants < 1)
    throw new ConfigError(`--max-merchants must be a whole number of at least 1, got ${result.maxMerchants}`);
  const badEntry = (flag: string, list: string[], pattern: RegExp, shape: string) => {
    const bad = list.find((entry) => !pattern.test(entry) || Number(/:(\d+)$/.exec(entry)?.[1] ?? 1) > 65535);
    if (bad !== undefined) throw new ConfigError(`${flag} expects ${shape}, got "${bad}"`);
  };
  badEntry(
    "--allow-host",
    result.allowHost,
    HOST_ENTRY,
    "a host name or IP, optionally with :PORT (e.g. myhost.local:7290)",
  );
  badEntry("--webhook-allow", result.webhookAllow, WEBHOOK_ENTRY, "HOST, HOST:PORT, *.DOMAIN or *");
  badEntry("--smtp-allow", result.smtpAllow, SMTP_ENTRY, "an e-mail address, @DOMAIN or *");
  return result;
}

/**
 * Why a --public-url cannot be the base of the links the sandbox hands out (payjs.js, hosted pages,
 * receipts, the OpenAPI server), or undefined when it can.
 */
function problemOfPublicUrl(value: string): string | undefined {
  if (/\s/.test(value)) return "it holds white space";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "it is not an absolute URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return `${url.protocol} is not http: or https:`;
  if (url.hostname === "") return "the host is missing";
  if (url.username !== "" || url.password !== "") return "it may not hold a user name or password";
  if (url.search !== "" || value.includes("?")) return "it may not hold a query";
  if (url.hash !== "" || value.includes("#")) return "it may not hold a fragment";
  return undefined;
}

export function helpText(): string {
  const lines = OPTIONS.map((o) => {
    const flag = o.kind === "boolean" ? o.flag : `${o.flag} <${o.kind === "number" ? "n" : "value"}>`;
    const def = DEFAULT_CONFIG[o.key];
    const shown = def === "" || def === false || (Array.isArray(def) && def.length === 0) ? "" : ` (default ${def})`;
    return `  ${flag.padEnd(28)} ${o.help}${shown}\n  ${"".padEnd(28)} env ${o.env}`;
  });
  return [
    "paysandbox — a local sandbox of a card and ACH payment service",
    "",
    "Usage: npm start -- [options]     (or: paysandbox [options])",
    "",
    ...lines,
    "  --help                       print this help",
    "  --version                    print the version",
  ].join("\n");
}
