/**
 * The card frames' style sanitizer (payjs/style.ts): the declaration strings the specification
 * documents, the objects pages also pass, and strings written to escape the allowlist.
 */
import { describe, expect, test } from "bun:test";
import { isSafeValue, sanitizeStyle, splitDeclarations, STYLE_PROPERTIES } from "../../packages/payjs/style";

describe("style strings as the specification types them", () => {
  test("the constructor table's example keeps every declaration", () => {
    expect(sanitizeStyle("width: 100%; height: 2em; font-size: 14px")).toEqual({
      declarations: [
        ["width", "100%"],
        ["height", "2em"],
        ["font-size", "14px"],
      ],
      dropped: [],
    });
  });

  test("what live checkout pages pass: font stacks, shorthands, colours, a trailing semicolon", () => {
    const style =
      "height: 35px; width: 100%; font-size: 15px; font-family: Helvetica Neue, Helvetica; color: #31325f; font-weight: 300;" +
      " border-radius: 3px; border: 1px solid #ccc; padding: .5em .5em; background-color: rgb(240, 248, 255)";
    const { declarations, dropped } = sanitizeStyle(style);
    expect(dropped).toEqual([]);
    expect(Object.fromEntries(declarations)).toEqual({
      height: "35px",
      width: "100%",
      "font-size": "15px",
      "font-family": "Helvetica Neue, Helvetica",
      color: "#31325f",
      "font-weight": "300",
      "border-radius": "3px",
      border: "1px solid #ccc",
      padding: ".5em .5em",
      "background-color": "rgb(240, 248, 255)",
    });
  });

  test("property names are case-insensitive, quoted font names and calc() are kept, !important is ignored", () => {
    expect(
      sanitizeStyle(
        "FONT-SIZE: 16px; font-family: 'Segoe UI', \"Open Sans\", sans-serif; width: calc(100% - 2px); color: red !important",
      ).declarations,
    ).toEqual([
      ["font-size", "16px"],
      ["font-family", "'Segoe UI', \"Open Sans\", sans-serif"],
      ["width", "calc(100% - 2px)"],
      ["color", "red"],
    ]);
  });

  test("empty declarations and stray semicolons are skipped; an empty or absent style is nothing", () => {
    expect(sanitizeStyle(";;; color: red;; ;").declarations).toEqual([["color", "red"]]);
    expect(sanitizeStyle("")).toEqual({ declarations: [], dropped: [] });
    expect(sanitizeStyle(undefined)).toEqual({ declarations: [], dropped: [] });
  });
});

describe("style objects", () => {
  test("camelCase and kebab-case keys both work; numbers become text", () => {
    expect(sanitizeStyle({ fontSize: "18px", "letter-spacing": "2px", opacity: 0.9 as never }).declarations).toEqual([
      ["font-size", "18px"],
      ["letter-spacing", "2px"],
      ["opacity", "0.9"],
    ]);
  });

  test("a key off the list or a hostile value is dropped by name", () => {
    expect(
      sanitizeStyle({
        color: "red",
        backgroundImage: "url(https://evil.test/x.png)",
        behavior: "url(x.htc)",
        width: "expression(alert(1))",
      }),
    ).toEqual({ declarations: [["color", "red"]], dropped: ["background-image", "behavior", "width"] });
  });
});

describe("hostile style strings: dropped, named, and nothing else lost", () => {
  const cases: [string, string, string[]][] = [
    ["url() in a shorthand", "background: url(javascript:alert(1)); color: blue", ["background"]],
    ["url() in an allowed property", "background-color: url(https://evil.test/); color: blue", ["background-color"]],
    [
      "a backslash escape spelling url(",
      "background-color: u\\72l(https://evil.test/); color: blue",
      ["background-color"],
    ],
    ["an escaped property name", "colo\\72: red; color: blue", ["colo\\72"]],
    ["expression()", "width: expression(alert(document.cookie)); color: blue", ["width"]],
    ["behavior (IE)", "behavior: url(#default#time2); color: blue", ["behavior"]],
    ["-moz-binding", "-moz-binding: url(https://evil.test/xbl#x); color: blue", ["-moz-binding"]],
    ["@import", "@import 'https://evil.test/x.css'; color: blue", ["@import"]],
    [
      "closing the style element",
      "font-size: 12px;}</style><script>alert(1)</script>; color: blue",
      ["}</style><script>alert"],
    ],
    ["a brace inside a value", "font-size: 1px} body{background:red; color: blue", ["font-size"]],
    ["an angle bracket inside a value", "font-family: a<script>; color: blue", ["font-family"]],
    ["image-set()", "background-color: image-set('x.png' 1x); color: blue", ["background-color"]],
    ["var() reaching outside", "font-size: var(--x); color: blue", ["font-size"]],
    ["a comment hiding url(", "background-color: u/**/rl(x); color: blue", ["background-color"]],
    ["a comment splitting the name", "font-/**/size: 10px; color: blue", ["font-"]],
    ["an unterminated comment", "color: blue; /* font-size: 99px", []],
    // An unterminated string or bracket swallows the rest, as in CSS.
    ["an unbalanced quote", "color: blue; font-family: 'Arial; font-size: 99px", ["font-family"]],
    ["an unbalanced bracket", "color: blue; width: calc(100% - 2px; font-size: 99px", ["width"]],
    ["position (not a text property)", "position: fixed; color: blue", ["position"]],
    ["a declaration without a colon", "colorblue; color: blue", ["colorblue"]],
    ["a fullwidth url(", "background-color: ｕｒｌ(x); color: blue", ["background-color"]],
    ["a very long value", `font-family: ${"a".repeat(300)}; color: blue`, ["font-family"]],
  ];
  for (const [name, style, dropped] of cases) {
    test(name, () => {
      const result = sanitizeStyle(style);
      expect(result.dropped).toEqual(dropped);
      expect(result.declarations).toContainEqual(["color", "blue"]);
      // Whatever survived is on the allowlist and made of plain tokens only.
      for (const [property, value] of result.declarations) {
        expect(STYLE_PROPERTIES.has(property)).toBe(true);
        expect(isSafeValue(value)).toBe(true);
        expect(value).not.toMatch(/[\\<>{};:@]|url|expression/i);
      }
    });
  }

  test("a dropped name in a warning is short and printable, never the whole hostile string", () => {
    const { dropped } = sanitizeStyle(`\u0000\u202e${"x".repeat(500)}: red`);
    expect(dropped).toHaveLength(1);
    expect(dropped[0]!.length).toBeLessThanOrEqual(41);
    expect(dropped[0]).toMatch(/^[\x20-\x7e…]+$/);
  });

  test("each dropped property is named once", () => {
    expect(sanitizeStyle("behavior: a; behavior: b; color: blue").dropped).toEqual(["behavior"]);
  });
});

describe("declaration splitting", () => {
  test("semicolons inside quotes and brackets do not end a declaration; comments are removed", () => {
    expect(splitDeclarations("a: 'x;y'; b: f(1;2); /* c: d; */ e: f")).toEqual(["a: 'x;y'", "b: f(1;2)", "e: f"]);
  });
});
