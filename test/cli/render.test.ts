/** The terminal renderer: withdrawn attempts, the live spinner, interrupted tools and colour. */
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/events.js";
import { LiveArea } from "../../src/cli/live-area.js";
import { TerminalRenderer } from "../../src/cli/render.js";
import type { MaybeTty } from "../../src/cli/terminal-text.js";
import { createScreen } from "../support/terminal-screen.js";

function capture(isTTY: boolean) {
  const stream = new PassThrough() as PassThrough & { isTTY?: boolean };
  stream.isTTY = isTTY;
  let text = "";
  stream.on("data", (d: Buffer) => {
    text += d.toString();
  });
  return { stream, read: () => text };
}

function render(
  events: AgentEvent[],
  opts: { tty?: boolean; streamText?: boolean; reasoning?: boolean } = {},
) {
  const out = capture(opts.tty ?? false);
  const status = capture(opts.tty ?? false);
  const r = new TerminalRenderer({
    out: out.stream,
    status: status.stream,
    streamText: opts.streamText ?? true,
    showTools: true,
    showReasoning: opts.reasoning ?? false,
    color: opts.tty ?? false,
  });
  for (const e of events) r.handle(e);
  r.close();
  return { out: out.read(), status: status.read() };
}

const retried: AgentEvent[] = [
  { type: "text_delta", text: "The answer", attempt: 1 },
  { type: "text_delta", text: " is 4", attempt: 1 },
  { type: "attempt_discarded", attempt: 1, reason: "server_error" },
  { type: "status", kind: "retry", message: "server_error: HTTP 500 — retrying in 0.1s (retry 1 of 3)" },
  { type: "text_delta", text: "The answer is 42.", attempt: 2 },
  { type: "done", status: "completed", finalText: "The answer is 42." },
];

describe("TerminalRenderer: a withdrawn attempt", () => {
  it("closes the withdrawn text with a marker line; the retry's text starts on a line of its own", () => {
    const { out, status } = render(retried);
    expect(out).toBe("The answer is 4\n  [previous partial answer discarded]\nThe answer is 42.\n");
    expect(status).toContain("[retry] server_error");
  });

  it("on a terminal the marker is dim", () => {
    const { out } = render(retried, { tty: true });
    expect(out).toContain(
      "The answer is 4\n\x1b[2m  [previous partial answer discarded]\x1b[0m\nThe answer is 42.",
    );
  });

  it("shown reasoning of a withdrawn attempt is marked where it was shown", () => {
    const { status } = render(
      [
        { type: "reasoning_delta", text: "hmm", attempt: 1 },
        { type: "attempt_discarded", attempt: 1, reason: "timeout" },
      ],
      { reasoning: true },
    );
    expect(status).toBe("hmm\n  [previous partial answer discarded]\n");
    const tty = render(
      [
        { type: "reasoning_delta", text: "hmm", attempt: 1 },
        { type: "attempt_discarded", attempt: 1, reason: "timeout" },
      ],
      { reasoning: true, tty: true },
    );
    expect(tty.status).toBe("\x1b[2mhmm\x1b[0m\n\x1b[2m  [previous partial answer discarded]\x1b[0m\n");
  });

  it("nothing is marked when the withdrawn attempt showed nothing here", () => {
    // One-shot mode does not stream the answer; hidden reasoning was never shown either.
    const quiet = render(retried, { streamText: false });
    expect(quiet.out).toBe("");
    expect(quiet.status).not.toContain("discarded");
    const otherAttempt = render([
      { type: "text_delta", text: "kept", attempt: 2 },
      { type: "attempt_discarded", attempt: 1, reason: "timeout" },
    ]);
    expect(otherAttempt.out).toBe("kept");
  });

  it("attempt numbers of an earlier request do not match the next one's", () => {
    const { out } = render([
      { type: "text_delta", text: "first", attempt: 1 },
      { type: "done", status: "completed", finalText: "first" },
      { type: "reasoning_delta", text: "hidden", attempt: 1 },
      { type: "attempt_discarded", attempt: 1, reason: "timeout" },
    ]);
    expect(out).toBe("first\n");
  });
});

const tool = (callId: string, command: string): AgentEvent => ({
  type: "tool_start",
  callId,
  name: "terminal",
  args: { command },
  emoji: "💻",
});
const toolEnd = (callId: string, result = '{"output":"","exit_code":0}', isError = false): AgentEvent => ({
  type: "tool_end",
  callId,
  name: "terminal",
  result,
  isError,
  durationMs: 1234,
});

/** A renderer on one terminal (stdout and stderr both go to it), with its live area and the screen. */
function onTerminal(opts: { color?: boolean } = {}) {
  const chunks: string[] = [];
  let all = "";
  const term = capture(true).stream as PassThrough & MaybeTty;
  term.columns = 80;
  term.on("data", (d: Buffer) => {
    chunks.push(d.toString());
    all += d.toString();
  });
  const live = new LiveArea(term, { now: () => 5000 });
  const r = new TerminalRenderer({
    out: term,
    status: term,
    streamText: true,
    showTools: true,
    showReasoning: false,
    live,
    color: opts.color ?? false,
  });
  const screen = createScreen(80, 20, { convertEol: true });
  const show = async () => {
    await new Promise((res) => setImmediate(res));
    await screen.write(chunks.splice(0).join(""));
    return screen;
  };
  return { r, live, show, raw: () => all };
}

describe("TerminalRenderer with a live area", () => {
  it("shows 'thinking' with elapsed time until the first token, then the text alone", async () => {
    const { r, show } = onTerminal();
    r.handle({ type: "turn_start", apiCall: 1 });
    const waiting = (await show()).rows();
    expect(waiting).toHaveLength(1);
    expect(waiting[0]).toMatch(/^ {2}[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] thinking \d+\.\ds$/);
    r.handle({ type: "text_delta", text: "Hello", attempt: 1 });
    expect((await show()).rows()).toEqual(["Hello"]);
    r.handle({ type: "done", status: "completed", finalText: "Hello" });
    expect((await show()).rows()).toEqual(["Hello"]);
    r.close();
  });

  it("a running tool spins with its label; its line stays when it ends; the model is awaited again", async () => {
    const { r, show } = onTerminal();
    r.handle({ type: "turn_start", apiCall: 1 });
    r.handle(tool("c1", "make test"));
    const running = (await show()).rows();
    expect(running).toHaveLength(1);
    expect(running[0]).toMatch(/^ {2}. 💻 terminal: make test \d+\.\ds$/);
    r.handle(toolEnd("c1"));
    const after = (await show()).rows();
    expect(after[0]).toBe("  💻 terminal: make test ✓ 1.2s");
    expect(after[1]).toMatch(/^ {2}. thinking \d+\.\ds$/);
    r.handle({ type: "done", status: "completed", finalText: "" });
    expect((await show()).rows()).toEqual(["  💻 terminal: make test ✓ 1.2s"]);
  });

  it("a tool that ends after an interrupt shows as interrupted, not ✓, and no spinner follows", async () => {
    const { r, show } = onTerminal();
    r.handle(tool("c1", "sleep 30"));
    r.interrupted();
    r.handle(toolEnd("c1", '{"output":"","exit_code":130}'));
    expect((await show()).rows()).toEqual(["  💻 terminal: sleep 30 ⊘ interrupted 1.2s"]);
    r.handle({ type: "done", status: "interrupted", finalText: "" });
    // The tool's own word counts too (an interrupt the renderer was not told about).
    r.handle(tool("c2", "sleep 5"));
    r.handle(toolEnd("c2", '{"output":"","exit_code":-1,"interrupted":true}'));
    const rows = (await show()).rows();
    expect(rows[1]).toBe("  💻 terminal: sleep 5 ⊘ interrupted 1.2s");
    expect(rows.join("\n")).not.toContain("✓");
  });

  it("colour: warnings yellow, failures red; without colour not one escape besides the area's own", async () => {
    const events: AgentEvent[] = [
      { type: "status", kind: "retry", message: "HTTP 500, retrying" },
      tool("c1", "false"),
      toolEnd("c1", '{"error":"exit 1"}', true),
      { type: "status", kind: "compress", message: "context compressed" },
    ];
    const coloured = onTerminal({ color: true });
    for (const e of events) coloured.r.handle(e);
    const screen = await coloured.show();
    expect(coloured.raw()).toContain("\x1b[33m  [retry] HTTP 500, retrying\x1b[0m");
    expect(screen.colourOf("[retry]")).toBe(3);
    expect(screen.colourOf("✗")).toBe(1);
    expect(screen.colourOf("[compress]")).toBeUndefined();
    const plain = onTerminal({ color: false });
    for (const e of events) plain.r.handle(e);
    await plain.show();
    expect(plain.raw()).toContain("  [retry] HTTP 500, retrying\n");
    expect(plain.raw()).not.toMatch(/\x1b\[[0-9;]*m/);
  });
});

describe("TerminalRenderer without a live area (-z, pipes)", () => {
  it("prints no spinner and no escape codes, only a line per started tool and failures", () => {
    const { out, status } = render([
      { type: "turn_start", apiCall: 1 },
      tool("c1", "ls"),
      toolEnd("c1"),
      tool("c2", "false"),
      toolEnd("c2", '{"error":"exit 1"}', true),
      { type: "text_delta", text: "Done.", attempt: 1 },
      { type: "done", status: "completed", finalText: "Done." },
    ]);
    expect(out).toBe("Done.\n");
    expect(status).toBe("  💻 terminal: ls\n  💻 terminal: false\n  💻 terminal: false ✗ exit 1\n");
    expect(out + status).not.toContain("\x1b");
  });
});
