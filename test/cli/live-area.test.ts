/** The live area: spinner and typed line below the scrollback, checked on a real terminal emulator. */
import { Writable } from "node:stream";
import { afterEach, describe, expect, it, vi } from "vitest";
import { formatElapsed, LiveArea, liveAreaFor } from "../../src/cli/live-area.js";
import type { MaybeTty } from "../../src/cli/terminal-text.js";
import { createScreen, type Screen } from "../support/terminal-screen.js";

const FRAME = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;

/** A TTY-like stream that keeps what was written, and the screen that shows it. */
function setup(cols = 40, rows = 10, now: () => number = () => 3200) {
  const chunks: string[] = [];
  let all = "";
  const term = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _enc, done) {
      chunks.push(String(chunk));
      all += String(chunk);
      done();
    },
  }) as Writable & MaybeTty;
  Object.assign(term, { isTTY: true, columns: cols, rows });
  const screen = createScreen(cols, rows, { convertEol: true });
  const area = new LiveArea(term, { now });
  const show = async (): Promise<Screen> => {
    await screen.write(chunks.splice(0).join(""));
    return screen;
  };
  return { term, area, show, written: () => all };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("LiveArea", () => {
  it("draws the spinner with elapsed time below the text; hiding it leaves no frame behind", async () => {
    const { area, show } = setup();
    area.write("first line\npartial");
    area.setStatus({ label: "thinking", since: 0 });
    expect((await show()).rows()).toEqual(["first line", "partial", "  ⠋ thinking 3.2s"]);
    // The unfinished line is continued where it stopped, above the spinner.
    area.write(" answer\nsecond");
    expect((await show()).rows()).toEqual(["first line", "partial answer", "second", "  ⠋ thinking 3.2s"]);
    area.setStatus(undefined);
    area.write(" line\n");
    const s = await show();
    expect(s.rows()).toEqual(["first line", "partial answer", "second line"]);
    expect(s.cursor()).toEqual({ x: 0, y: 3 });
  });

  it("keeps scrolled-off text intact and frame-free when the screen is full", async () => {
    const { area, show } = setup(40, 4);
    area.setStatus({ label: "💻 terminal: make test", since: 1000 });
    for (let i = 1; i <= 9; i++) area.write(`out ${i}\n`);
    const during = await show();
    expect(during.visible().at(-1)).toBe("  ⠋ 💻 terminal: make test 2.2s");
    area.setStatus(undefined);
    const s = await show();
    expect(s.rows()).toEqual([
      "out 1",
      "out 2",
      "out 3",
      "out 4",
      "out 5",
      "out 6",
      "out 7",
      "out 8",
      "out 9",
    ]);
    expect(s.rows().some((r) => FRAME.test(r))).toBe(false);
  });

  it("a long label is cut to the width, the elapsed time always shown", async () => {
    const { area, show } = setup(30, 4);
    area.setStatus({ label: "💻 terminal: make test && make install", since: 1000 });
    const row = (await show()).rows()[0]!;
    expect(row).toMatch(/^ {2}⠋ 💻 terminal: make…\s2\.2s$/);
  });

  it("a line that fills the row exactly: the next text starts on the next row, as without the area", async () => {
    const { area, show } = setup(20, 6);
    area.write("x".repeat(20));
    area.setStatus({ label: "thinking", since: 0 });
    area.write("y\n");
    area.setStatus(undefined);
    expect((await show()).rows()).toEqual(["x".repeat(20), "y"]);
  });

  it("shows the line being typed on its own row below the spinner, with the cursor in it", async () => {
    const { area, show } = setup();
    area.setStatus({ label: "thinking", since: 0 });
    area.setInput(() => ({ text: "❯ also run the tests", cursorRow: 0, cursorCol: 7 }));
    area.write("The answer so far");
    let s = await show();
    expect(s.rows()).toEqual(["The answer so far", "  ⠋ thinking 3.2s", "❯ also run the tests"]);
    expect(s.cursor()).toEqual({ x: 7, y: 2 });
    area.write(" continues\n");
    s = await show();
    expect(s.rows()).toEqual(["The answer so far continues", "  ⠋ thinking 3.2s", "❯ also run the tests"]);
  });

  it("a typed line that wraps gets the rows it needs", async () => {
    const { area, show } = setup(20, 6);
    const text = `❯ ${"w".repeat(30)}`;
    area.setInput(() => ({ text, cursorRow: 1, cursorCol: 12 }));
    area.setStatus({ label: "thinking", since: 0 });
    for (let i = 1; i <= 6; i++) area.write(`row ${i}\n`);
    const s = await show();
    expect(s.visible().slice(-3)).toEqual(["  ⠋ thinking 3.2s", `❯ ${"w".repeat(18)}`, "w".repeat(12)]);
    expect(s.cursor()).toEqual({ x: 12, y: 5 });
    expect(s.rows().slice(0, 6)).toEqual(["row 1", "row 2", "row 3", "row 4", "row 5", "row 6"]);
  });

  it("hands the typed line back in place: the spinner goes (and stays gone), the line and its cursor stay", async () => {
    const { area, show } = setup();
    area.write("done\n");
    area.setStatus({ label: "thinking", since: 0 });
    area.setInput(() => ({ text: "❯ next question", cursorRow: 0, cursorCol: 8 }));
    area.setInput(undefined);
    const s = await show();
    expect(s.rows()).toEqual(["done", "❯ next question"]);
    expect(s.cursor()).toEqual({ x: 8, y: 1 });
    // The area no longer owns those rows, and nothing ticks below them.
    await new Promise((r) => setTimeout(r, 150));
    expect((await show()).rows()).toEqual(["done", "❯ next question"]);
  });

  it("drops the line editor's output while it draws the typed line, and passes it on otherwise", async () => {
    const { area, written, show } = setup();
    const editor = area.editorOutput();
    editor.write("❯ ");
    expect(written()).toBe("❯ ");
    let line = "";
    area.setInput(() => (line ? { text: `❯ ${line}`, cursorRow: 0, cursorCol: 2 + line.length } : undefined));
    line = "abc";
    editor.write("abc");
    expect(written()).not.toContain("abc");
    // The edit schedules a redraw from the editor's state.
    await new Promise((r) => process.nextTick(r));
    expect(written()).toContain("❯ abc");
    await show();
    expect(editor.columns).toBe(40);
    expect(editor.isTTY).toBe(true);
  });

  it("suspend clears the area for a prompt; resume draws it again", async () => {
    const { area, show } = setup();
    area.setStatus({ label: "thinking", since: 0 });
    area.suspend();
    area.write("Approve? o\n");
    expect((await show()).rows()).toEqual(["Approve? o"]);
    area.resume();
    expect((await show()).rows()).toEqual(["Approve? o", "  ⠋ thinking 3.2s"]);
  });

  it("close clears the area and ends an unfinished line, then writes pass straight through", async () => {
    const { area, show, written } = setup();
    area.write("❯ ");
    area.setStatus({ label: "thinking", since: 0 });
    area.close();
    const s = await show();
    expect(s.rows()).toEqual(["❯"]);
    expect(s.cursor()).toEqual({ x: 0, y: 1 });
    area.write("after\n");
    expect(written().endsWith("\r\nafter\n")).toBe(true);
    expect(area.atLineStart).toBe(true);
  });

  it("the elapsed time ticks about ten times a second only while shown; the timer stops when idle", async () => {
    // The emulator keeps its own (real) timeouts.
    vi.useFakeTimers({ now: 0, toFake: ["setInterval", "clearInterval", "Date"] });
    const { area, show, written } = setup(40, 10, Date.now);
    area.setStatus({ label: "thinking", since: 0 });
    vi.advanceTimersByTime(1000);
    expect((await show()).rows()).toEqual(["  ⠋ thinking 1.0s"]);
    const frames = written().match(/thinking/g)?.length ?? 0;
    expect(frames).toBeGreaterThanOrEqual(10);
    expect(frames).toBeLessThanOrEqual(12);
    area.setStatus(undefined);
    expect(vi.getTimerCount()).toBe(0);
    const before = written().length;
    vi.advanceTimersByTime(5000);
    expect(written().length).toBe(before);
    // Suspended: no ticking either.
    area.setStatus({ label: "thinking", since: 0 });
    area.suspend();
    expect(vi.getTimerCount()).toBe(0);
    area.close();
  });

  it("writes to another terminal stream (stderr) go between clearing and redrawing", async () => {
    const { area, show } = setup();
    const chunks: string[] = [];
    const other = new Writable({
      write(chunk, _enc, done) {
        chunks.push(String(chunk));
        done();
      },
    }) as Writable & MaybeTty;
    other.isTTY = true;
    area.setStatus({ label: "thinking", since: 0 });
    area.write("  [retry] waiting\n", other);
    expect(chunks).toEqual(["  [retry] waiting\n"]);
    // A stream that is not a terminal (a log file) does not touch the screen.
    other.isTTY = false;
    area.write("logged\n", other);
    expect(chunks.at(-1)).toBe("logged\n");
    const s = await show();
    expect(s.rows()).toEqual(["  ⠋ thinking 3.2s"]);
  });
});

describe("liveAreaFor", () => {
  it("only a terminal that can hold an area gets one", () => {
    const tty = setup().term;
    expect(liveAreaFor(tty, { TERM: "xterm-256color" })).toBeInstanceOf(LiveArea);
    expect(liveAreaFor(tty, { TERM: "dumb" })).toBeUndefined();
    tty.isTTY = false;
    expect(liveAreaFor(tty, {})).toBeUndefined();
  });
});

describe("formatElapsed", () => {
  it("tenths under a minute, then minutes and seconds", () => {
    expect(formatElapsed(0)).toBe("0.0s");
    expect(formatElapsed(3249)).toBe("3.2s");
    expect(formatElapsed(65_000)).toBe("1m05s");
  });
});
