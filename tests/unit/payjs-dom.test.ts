/**
 * PayJs against a DOM (happy-dom): what showCardForm() puts in the page. happy-dom is registered
 * only for this file (it replaces the global fetch, which other suites' Bun.serve needs), and it
 * cannot check cross-origin messaging; the real thing is tested in Chromium (tests/browser).
 */
import { GlobalRegistrator } from "@happy-dom/global-registrator";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { LIBRARY_MESSAGES, PayJsError } from "../../packages/payjs/errors";
import { decodeFrameConfig } from "../../packages/payjs/protocol";
import { PayJs, setSandboxBase } from "../../packages/payjs/payjs";

const SANDBOX = "http://sandbox.test:7290";

/** The console warnings `run` printed. */
function captureWarnings(run: () => void): string[] {
  const warnings: string[] = [];
  const original = console.warn;
  console.warn = (...args: unknown[]) => void warnings.push(args.map(String).join(" "));
  try {
    run();
  } finally {
    console.warn = original;
  }
  return warnings;
}

describe("PayJs in a DOM", () => {
  beforeAll(() => {
    GlobalRegistrator.register({
      url: "http://shop.test/checkout",
      settings: {
        enableIframePageLoading: true,
        // Frame pages load empty (never ready); the API answers as the sandbox answers an unknown token.
        fetch: {
          interceptor: {
            beforeAsyncRequest: async ({ request, window }) =>
              request.url.includes("/payjs/frames/")
                ? new window.Response("<!doctype html><title>frame</title>", {
                    headers: { "content-type": "text/html" },
                  })
                : new window.Response(JSON.stringify({ message: "Unauthenticated.", code: "unauthenticated" }), {
                    status: 401,
                    headers: { "content-type": "application/json" },
                  }),
          },
        },
      },
    });
    setSandboxBase(SANDBOX);
  });
  afterAll(async () => {
    await GlobalRegistrator.unregister();
  });
  beforeEach(() => {
    document.body.innerHTML = '<div id="number"><span>placeholder</span></div><div id="cvv"></div>';
  });

  test("showCardForm() replaces each container's content with a frame of the sandbox carrying the field's options", async () => {
    const payjs = new PayJs("tok_123", {
      number: {
        id: "number",
        placeholder: "Card",
        format: "maskedFormat",
        style: "color: red; behavior: url(x)",
        type: "text",
      },
      cvv: { id: "cvv", placeholder: "CVC" },
    });
    const shown = payjs.showCardForm().catch((error: PayJsError) => error);
    const number = document.querySelector<HTMLIFrameElement>("#number iframe")!;
    const cvv = document.querySelector<HTMLIFrameElement>("#cvv iframe")!;
    expect(document.querySelector("#number span")).toBeNull();
    expect(number.src.startsWith(`${SANDBOX}/payjs/frames/number.html#`)).toBe(true);
    expect(cvv.src.startsWith(`${SANDBOX}/payjs/frames/cvv.html#`)).toBe(true);
    const numberConfig = decodeFrameConfig(new URL(number.src).hash)!;
    const cvvConfig = decodeFrameConfig(new URL(cvv.src).hash)!;
    expect(numberConfig).toMatchObject({
      field: "number",
      token: "tok_123",
      origin: "http://shop.test",
      placeholder: "Card",
      format: "maskedFormat",
      // The style goes to the frame as given: it is sanitized there, never applied in this page.
      style: "color: red; behavior: url(x)",
      type: "text",
      autosize: true,
    });
    expect(cvvConfig).toMatchObject({ field: "cvv", token: "tok_123", placeholder: "CVC" });
    // Both frames belong to one instance, named after it.
    expect(cvvConfig.instance).toBe(numberConfig.instance);
    expect(number.name).toBe(`payjs-number-${numberConfig.instance}`);

    // The sandbox does not know the token: the promise rejects and the frames are taken out again.
    const error = (await shown) as PayJsError;
    expect(error).toBeInstanceOf(PayJsError);
    expect(error.code).toBe("unknown_token");
    expect(document.querySelectorAll("iframe")).toHaveLength(0);
  });

  test("two instances get different instance ids", () => {
    const ids = ["a", "b"].map((suffix) => {
      document.body.innerHTML += `<div id="n${suffix}"></div><div id="c${suffix}"></div>`;
      void new PayJs("tok", { number: { id: `n${suffix}` }, cvv: { id: `c${suffix}` } }).showCardForm().catch(() => {});
      return decodeFrameConfig(new URL(document.querySelector<HTMLIFrameElement>(`#n${suffix} iframe`)!.src).hash)!
        .instance;
    });
    expect(ids[0]).not.toBe(ids[1]);
  });

  test("showCardForm() rejects with missing_container naming the id that is not in the page", async () => {
    const error = await new PayJs("tok", { number: { id: "number" }, cvv: { id: "card-cvv" } })
      .showCardForm()
      .catch((e: PayJsError) => e);
    expect(error).toMatchObject({
      name: "PayJsError",
      code: "missing_container",
      message: LIBRARY_MESSAGES.missingContainer("card-cvv"),
    });
    expect(document.querySelectorAll("iframe")).toHaveLength(0);
  });

  test("what the live library's pages also pass is accepted: every input type, unknown members, card_form_incomplete", () => {
    const warnings = captureWarnings(() => {
      for (const type of ["text", "tel", "number", "password"] as const) {
        new PayJs("tok", {
          number: { id: "n", type, extra: 1 } as never,
          cvv: { id: "c", type, other: true } as never,
        });
      }
      new PayJs("tok", {}).on("card_form_incomplete", () => {});
    });
    expect(warnings).toEqual([]);
  });

  test("an unknown input type warns once and the field falls back to tel; an unknown event warns and returns", () => {
    let returned: unknown = "not called";
    const warnings = captureWarnings(() => {
      const payjs = new PayJs("tok", { number: { id: "n", type: "email" as never }, cvv: { id: "c" } });
      returned = payjs.on("card_form_changed" as never, () => {});
    });
    expect(returned).toBeUndefined();
    expect(warnings).toEqual([
      LIBRARY_MESSAGES.unknownInputType("number", "email"),
      LIBRARY_MESSAGES.unknownEvent("card_form_changed"),
    ]);
  });

  test("misuse throws a TypeError at once, saying what was expected", () => {
    expect(() => new PayJs(42 as never)).toThrow("PayJs: token expected the web payments token (a string), got number");
    expect(() => new PayJs("tok", { number: { id: "" } })).toThrow('options.number.id expected an element id, got ""');
    expect(() => new PayJs("tok", { number: { id: "n" }, cvv: { id: "c", style: 12 as never } })).toThrow(
      "options.cvv.style expected a CSS declaration string or an object of CSS properties, got number",
    );
    // A card form without one of its two fields names the one left out.
    expect(() => new PayJs("tok", { number: { id: "n" } } as never)).toThrow(
      "PayJs: options.cvv expected { id } of the CVV container (a card form needs number and cvv), got undefined",
    );
    expect(() => new PayJs("tok", { cvv: { id: "c" } })).toThrow("PayJs: options.number expected");
    expect(() => new PayJs("tok", {}).on("card_form_complete", "nope" as never)).toThrow(
      'on(event, callback) expected a function, got "nope"',
    );
  });
});
