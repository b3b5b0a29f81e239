import { describe, expect, test } from "bun:test";
import { ConfigError, DEFAULT_CONFIG, helpText, loadConfig, OPTIONS, publicUrlOf } from "../../config";

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

  test("a public URL, when given, is used as is without a trailing slash", () => {
    expect(publicUrlOf(loadConfig(["--public-url", "https://pay.test/"], {}))).toBe("https://pay.test");
  });

  test("unknown flags, missing values and bad numbers are errors that say what is wrong", () => {
    expect(() => loadConfig(["--prot", "1"], {})).toThrow(new ConfigError("unknown option --prot (see --help)"));
    expect(() => loadConfig(["--port"], {})).toThrow("--port needs a value");
    expect(() => loadConfig(["--port", "http"], {})).toThrow('--port expects a number, got "http"');
    expect(() => loadConfig(["--port", "70000"], {})).toThrow("--port must be 0..65535");
    expect(() => loadConfig(["--chaos", "2"], {})).toThrow("--chaos must be between 0 and 1");
  });

  test("--help lists every flag and its environment variable", () => {
    const help = helpText();
    for (const option of OPTIONS) {
      expect(help).toContain(option.flag);
      expect(help).toContain(option.env);
    }
  });
});
