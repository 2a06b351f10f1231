/** Display widths, cursor tracking and colour rules for terminal output. */
import { describe, expect, it } from "vitest";
import {
  advance,
  charWidth,
  colorEnabled,
  fitWidth,
  type MaybeTty,
  paint,
  textWidth,
} from "../../src/cli/terminal-text.js";

const stream = (isTTY: boolean): MaybeTty => ({ isTTY }) as MaybeTty;

describe("widths", () => {
  it("counts wide, narrow and zero-width characters, and skips escape sequences", () => {
    expect(charWidth("a")).toBe(1);
    expect(charWidth("界")).toBe(2);
    expect(charWidth("💻")).toBe(2);
    expect(charWidth("\u0301")).toBe(0);
    expect(textWidth("\x1b[33mwarn\x1b[0m")).toBe(4);
    expect(textWidth("\x1b]0;title\x07ok")).toBe(2);
    expect(textWidth("日本 ok")).toBe(7);
  });

  it("fitWidth cuts with an ellipsis and never splits an escape or exceeds the width", () => {
    expect(fitWidth("short", 10)).toBe("short");
    expect(fitWidth("abcdefghij", 5)).toBe("abcd…");
    expect(textWidth(fitWidth("日本語のテキスト", 7))).toBeLessThanOrEqual(7);
    expect(fitWidth("\x1b[2mabcdef\x1b[0m", 4)).toBe("\x1b[2mabc…");
  });
});

describe("advance (where the cursor ends up)", () => {
  it("tracks columns, line ends, carriage returns and wrapping", () => {
    const start = { col: 0, dirty: false };
    expect(advance(start, "abc", 10)).toEqual({ col: 3, dirty: true });
    expect(advance(start, "abc\n", 10)).toEqual({ col: 0, dirty: false });
    expect(advance(start, "abc\r", 10)).toEqual({ col: 0, dirty: true });
    expect(advance(start, "x".repeat(10), 10)).toEqual({ col: 10, dirty: true });
    expect(advance(start, "x".repeat(11), 10)).toEqual({ col: 1, dirty: true });
    // A wide character that does not fit in the last column starts the next row.
    expect(advance({ col: 9, dirty: true }, "界", 10)).toEqual({ col: 2, dirty: true });
    expect(advance(start, "\x1b[31m\x1b[0m", 10)).toEqual(start);
    expect(advance(start, "a\tb", 20)).toEqual({ col: 9, dirty: true });
  });
});

describe("colour", () => {
  it("on a terminal unless NO_COLOR is set (an empty NO_COLOR does not count)", () => {
    expect(colorEnabled(stream(true), {})).toBe(true);
    expect(colorEnabled(stream(true), { NO_COLOR: "1" })).toBe(false);
    expect(colorEnabled(stream(true), { NO_COLOR: "" })).toBe(true);
    expect(colorEnabled(stream(false), {})).toBe(false);
  });

  it("paint wraps only when on", () => {
    expect(paint("error", "[error] x", true)).toBe("\x1b[31m[error] x\x1b[0m");
    expect(paint("warning", "w", true)).toBe("\x1b[33mw\x1b[0m");
    expect(paint("error", "[error] x", false)).toBe("[error] x");
  });
});
