import { describe, expect, test } from "bun:test";
import { ConfigError, helpText, loadConfig, OPTIONS } from "../../src/entry/cli";
import { DEFAULT_CONFIG, publicUrlOf } from "../../src/lib/config";

describe("config", () => {
  test("defaults: 127.0.0.1:7290, the embedded SQLite file, fixed keys", () => {
    const config = loadConfig([], {});
    expect(config).toEqual(DEFAULT_CONFIG);
    expect(config.port).toBe(7290);
    expect(config.dbPath).toBe("./.paysandbox/sandbox.sqlite");
    expect(publicUrlOf(config)).toBe("http://localhost:7290");
  });

  test("env overrides defaults and flags override env", () => {
    const config = loadConfig(["--port", "8000", "--db=:memory:", "--quiet"], {
      PAYSANDBOX_PORT: "9000",
      PAYSANDBOX_HOST: "0.0.0.0",
      PAYSANDBOX_SMTP_URL: "smtp://127.0.0.1:2525",
    });
    expect(config.port).toBe(8000);
    expect(config.host).toBe("0.0.0.0");
    expect(config.dbPath).toBe(":memory:");
    expect(config.smtpUrl).toBe("smtp://127.0.0.1:2525");
    expect(config.quiet).toBe(true);
  });

  test("--log-requests (request lines, off by default): on with the flag, its env variable or an explicit on-word; off with an off-word", () => {
    expect(loadConfig([], {}).logRequests).toBe(false);
    expect(loadConfig(["--log-requests"], {}).logRequests).toBe(true);
    expect(loadConfig(["--log-requests=on"], {}).logRequests).toBe(true);
    expect(loadConfig(["--log-requests=false"], {}).logRequests).toBe(false);
    expect(loadConfig([], { PAYSANDBOX_LOG_REQUESTS: "1" }).logRequests).toBe(true);
    expect(loadConfig([], { PAYSANDBOX_LOG_REQUESTS: "Off" }).logRequests).toBe(false);
    // The flag overrides its env variable.
    expect(loadConfig(["--log-requests=no"], { PAYSANDBOX_LOG_REQUESTS: "yes" }).logRequests).toBe(false);
  });

  test("a boolean flag or env variable with a value that is neither on nor off stops start-up and says what it expects", () => {
    expect(() => loadConfig(["--log-requests=maybe"], {})).toThrow(
      new ConfigError(
        '--log-requests (PAYSANDBOX_LOG_REQUESTS) is on or off: expects one of 1, true, yes, on, 0, false, no, off, got "maybe"',
      ),
    );
    expect(() => loadConfig([], { PAYSANDBOX_LOG_REQUESTS: "verbose" })).toThrow(/--log-requests .* got "verbose"/);
    expect(() => loadConfig([], { PAYSANDBOX_QUIET: "2" })).toThrow(/--quiet \(PAYSANDBOX_QUIET\) is on or off/);
  });

  test("a public URL, when given, is used as is without a trailing slash", () => {
    expect(publicUrlOf(loadConfig(["--public-url", "https://pay.test/"], {}))).toBe("https://pay.test");
    expect(publicUrlOf(loadConfig(["--public-url", "http://10.0.0.5:7290"], {}))).toBe("http://10.0.0.5:7290");
    expect(publicUrlOf(loadConfig([], { PAYSANDBOX_PUBLIC_URL: "https://team.internal/sandbox/" }))).toBe(
      "https://team.internal/sandbox",
    );
  });

  test("chosen keys must be sendable: the token as a URL path segment, the API key as a Bearer credential", () => {
    const config = loadConfig(["--web-payments-token", "pk_live-Token.1~x", "--api-key", "sk_A1+b/c-d.e~f=="], {});
    expect([config.defaultWebPaymentsToken, config.defaultApiKey]).toEqual(["pk_live-Token.1~x", "sk_A1+b/c-d.e~f=="]);
    for (const token of ["<script>", "a/b", "a b", "tok?en", "t%20", "x".repeat(257)]) {
      expect(() => loadConfig(["--web-payments-token", token], {})).toThrow(
        new ConfigError(
          `--web-payments-token may hold letters, digits and . _ ~ - (at most 256), as it is part of every /webpayment/{token}/ URL; got "${token}"`,
        ),
      );
    }
    for (const key of ["a b", "key\u00e9", "k=ey", "<k>", "k;ey"]) {
      expect(() => loadConfig([], { PAYSANDBOX_API_KEY: key })).toThrow(
        new ConfigError(
          `--api-key may hold letters, digits and . _ ~ + / - (then = padding), as it is sent as "Authorization: Bearer <key>"; got "${key}"`,
        ),
      );
    }
    expect(() => loadConfig(["--api-key", "k".repeat(257)], {})).toThrow(
      "--api-key may be at most 256 characters long",
    );
    // Empty means random (the flag's documented default beyond loopback).
    expect(loadConfig(["--api-key", ""], {}).defaultApiKey).toBe("");
  });

  test("a public URL that cannot be the base of the sandbox's links stops the start and says why", () => {
    // Each was taken as given before: payjs.js, the hosted pages, receipts and the OpenAPI server then linked nowhere.
    const cases: [string, string][] = [
      ["not a url", "it holds white space"],
      ["sandbox.test", "it is not an absolute URL"],
      ["ftp://sandbox.test", "ftp: is not http: or https:"],
      ["javascript:alert(1)", "javascript: is not http: or https:"],
      ["https://user:secret@sandbox.test", "it may not hold a user name or password"],
      ["https://sandbox.test/?a=1", "it may not hold a query"],
      ["https://sandbox.test/#top", "it may not hold a fragment"],
    ];
    for (const [value, why] of cases) {
      expect(() => loadConfig(["--public-url", value], {})).toThrow(
        new ConfigError(
          `--public-url expects the address integrators open, http(s)://HOST[:PORT][/PATH] (e.g. https://sandbox.team.internal); ${why}, got "${value}"`,
        ),
      );
    }
    expect(() => loadConfig([], { PAYSANDBOX_PUBLIC_URL: "ftp://x" })).toThrow(/--public-url expects/);
  });

  test("unknown flags, missing values and bad numbers are errors that say what is wrong", () => {
    expect(() => loadConfig(["--prot", "1"], {})).toThrow(new ConfigError("unknown option --prot (see --help)"));
    expect(() => loadConfig(["--port"], {})).toThrow("--port needs a value");
    expect(() => loadConfig(["--port", "http"], {})).toThrow('--port expects a number, got "http"');
    expect(() => loadConfig(["--port", "70000"], {})).toThrow("--port must be 0..65535");
    expect(() => loadConfig(["--chaos", "2"], {})).toThrow("--chaos must be between 0 and 1");
  });

  test("the security flags: lists repeat and comma-separate, bad entries stop the start and say what is expected", () => {
    const config = loadConfig(
      [
        "--allow-host",
        "devbox.local",
        "--allow-host=phone.test:7290",
        "--webhook-allow",
        "*.ngrok.app,10.0.0.5:4000",
        "--trust-proxy",
      ],
      { PAYSANDBOX_SMTP_ALLOW: "@corp.example, qa@shop.com", PAYSANDBOX_MAX_MERCHANTS: "5000" },
    );
    expect(config.allowHost).toEqual(["devbox.local", "phone.test:7290"]);
    expect(config.webhookAllow).toEqual(["*.ngrok.app", "10.0.0.5:4000"]);
    expect(config.smtpAllow).toEqual(["@corp.example", "qa@shop.com"]);
    expect(config.trustProxy).toBe(true);
    expect(config.maxMerchants).toBe(5000);
    expect(loadConfig(["--allow-remote"], {}).allowRemote).toBe(true); // the old spelling
    expect(() => loadConfig(["--allow-host", "http://evil.example/"], {})).toThrow(
      '--allow-host expects a host name or IP, optionally with :PORT (e.g. myhost.local:7290), got "http://evil.example/"',
    );
    expect(() => loadConfig(["--allow-host", "box:99999"], {})).toThrow("--allow-host expects");
    expect(() => loadConfig(["--webhook-allow", "https://x.test/hook"], {})).toThrow(
      '--webhook-allow expects HOST, HOST:PORT, *.DOMAIN or *, got "https://x.test/hook"',
    );
    expect(() => loadConfig(["--smtp-allow", "everyone"], {})).toThrow(
      '--smtp-allow expects an e-mail address, @DOMAIN or *, got "everyone"',
    );
    expect(() => loadConfig(["--max-merchants", "0"], {})).toThrow(
      "--max-merchants must be a whole number of at least 1",
    );
    expect(() => loadConfig(["--max-merchants", "2.5"], {})).toThrow("--max-merchants must be a whole number");
  });

  test("beyond loopback the documented keys become random ones; asking for them is an error", () => {
    const lan = loadConfig(["--host", "0.0.0.0"], {});
    expect([lan.defaultApiKey, lan.defaultWebPaymentsToken]).toEqual(["", ""]);
    expect(() => loadConfig(["--host", "0.0.0.0", "--api-key", "sandbox_api_key"], {})).toThrow(
      "--api-key sandbox_api_key is the documented key",
    );
    expect(loadConfig(["--host", "0.0.0.0", "--api-key", "mine"], {}).defaultApiKey).toBe("mine");
    expect(loadConfig(["--host", "127.0.0.1"], {}).defaultApiKey).toBe("sandbox_api_key");
  });

  test("--help lists every flag and its environment variable", () => {
    const help = helpText();
    for (const option of OPTIONS) {
      expect(help).toContain(option.flag);
      expect(help).toContain(option.env);
    }
  });
});
