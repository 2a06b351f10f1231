import { createInterface } from "node:readline";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import {
  createClarifyPrompt,
  OTHER_LABEL,
  type PickerState,
  pickerKey,
  renderPicker,
} from "../../../src/cli/repl/clarify-prompt.js";

describe("clarify picker keys (pure)", () => {
  const s: PickerState = { index: 0, count: 4 }; // three choices + Other

  it("moves with up/down (wrapping) and Ctrl+P/N", () => {
    expect(pickerKey(s, { name: "down" })).toEqual({ kind: "move", state: { index: 1, count: 4 } });
    expect(pickerKey(s, { name: "up" })).toEqual({ kind: "move", state: { index: 3, count: 4 } });
    expect(pickerKey({ index: 3, count: 4 }, { name: "down" })).toEqual({
      kind: "move",
      state: { index: 0, count: 4 },
    });
    expect(pickerKey(s, { name: "n", ctrl: true })).toMatchObject({ state: { index: 1 } });
    expect(pickerKey(s, { name: "p", ctrl: true })).toMatchObject({ state: { index: 3 } });
  });

  it("Enter takes the highlighted entry; the last one is Other", () => {
    expect(pickerKey({ index: 2, count: 4 }, { name: "return" })).toEqual({ kind: "choose", index: 2 });
    expect(pickerKey({ index: 3, count: 4 }, { name: "return" })).toEqual({ kind: "other" });
  });

  it("a digit chooses directly; out-of-range digits and other keys are ignored", () => {
    expect(pickerKey(s, { name: "2", sequence: "2" })).toEqual({ kind: "choose", index: 1 });
    expect(pickerKey(s, { name: "4", sequence: "4" })).toEqual({ kind: "other" });
    expect(pickerKey(s, { name: "5", sequence: "5" })).toEqual({ kind: "ignore" });
    expect(pickerKey(s, { name: "x", sequence: "x" })).toEqual({ kind: "ignore" });
    expect(pickerKey(s, { sequence: "0" })).toEqual({ kind: "ignore" });
  });

  it("Esc and Ctrl+C give no answer", () => {
    expect(pickerKey(s, { name: "escape" })).toEqual({ kind: "cancel" });
    expect(pickerKey(s, { name: "c", ctrl: true })).toEqual({ kind: "cancel" });
  });

  it("marks the highlighted entry and lists Other last", () => {
    const lines = renderPicker({ question: "Which?", choices: ["a", "b"] }, { index: 1, count: 3 });
    expect(lines).toEqual([
      "❓ Which?",
      "  1. a",
      "❯ 2. b",
      `  3. ${OTHER_LABEL}`,
      "  (↑/↓ to move, Enter or a number to choose)",
    ]);
  });
});

/** A chat-like readline over in-memory streams; `terminal` as the chat sets it. */
function chat(terminal: boolean) {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = "";
  output.on("data", (d: Buffer) => {
    shown += d.toString();
  });
  const rl = createInterface({ input, output, terminal });
  const lines: string[] = [];
  rl.on("line", (l) => lines.push(l));
  return { input, output, rl, lines, shown: () => shown };
}

const tick = () => new Promise((r) => setTimeout(r, 10));
const open: Array<{ rl: { close(): void } }> = [];
afterEach(() => {
  for (const c of open.splice(0)) c.rl.close();
});

describe("createClarifyPrompt", () => {
  it("on a terminal: arrows and Enter choose, and the chat's readline sees none of the keys", async () => {
    const c = chat(true);
    open.push(c);
    const ask = createClarifyPrompt({ output: c.output, rl: () => c.rl, input: c.input, picker: true });
    const answer = ask({
      question: "Which db?",
      choices: ["postgres", "sqlite", "mysql"],
      signal: new AbortController().signal,
    });
    await tick();
    c.input.write("\x1b[B"); // down
    c.input.write("\x1b[B");
    c.input.write("\x1b[A"); // up
    c.input.write("\r");
    expect(await answer).toBe("sqlite");
    expect(c.shown()).toContain("❯ 2. sqlite");
    expect(c.lines).toEqual([]);
    // The chat gets its keys back afterwards.
    c.input.write("next prompt\r");
    await tick();
    expect(c.lines).toEqual(["next prompt"]);
  });

  it("on a terminal: a digit picks directly; Other switches to free text", async () => {
    const c = chat(true);
    open.push(c);
    const ask = createClarifyPrompt({ output: c.output, rl: () => c.rl, input: c.input, picker: true });
    const signal = new AbortController().signal;
    const first = ask({ question: "Q?", choices: ["a", "b"], signal });
    await tick();
    c.input.write("2");
    expect(await first).toBe("b");
    const second = ask({ question: "Q?", choices: ["a", "b"], signal });
    await tick();
    c.input.write("3");
    await tick();
    c.input.write("my own words\r");
    expect(await second).toBe("my own words");
    expect(c.shown()).toContain("Type your answer");
  });

  it("an abort (timeout, interrupt) ends the picker with no answer", async () => {
    const c = chat(true);
    open.push(c);
    const ask = createClarifyPrompt({ output: c.output, rl: () => c.rl, input: c.input, picker: true });
    const ctl = new AbortController();
    const answer = ask({ question: "Q?", choices: ["a"], signal: ctl.signal });
    await tick();
    ctl.abort();
    expect(await answer).toBeUndefined();
  });

  it("without a terminal: the numbered prompt (a number, Other then text, or free text)", async () => {
    const c = chat(false);
    open.push(c);
    const ask = createClarifyPrompt({ output: c.output, rl: () => c.rl, input: c.input, picker: false });
    const signal = new AbortController().signal;
    const a = ask({ question: "Pick one", choices: ["red", "blue"], signal });
    await tick();
    c.input.write("2\n");
    expect(await a).toBe("blue");
    expect(c.shown()).toContain("  3. Other (type your answer)");
    const b = ask({ question: "Pick one", choices: ["red", "blue"], signal });
    await tick();
    c.input.write("3\n");
    await tick();
    c.input.write("green\n");
    expect(await b).toBe("green");
    const d = ask({ question: "Free?", choices: [], signal });
    await tick();
    c.input.write("anything at all\n");
    expect(await d).toBe("anything at all");
  });
});
