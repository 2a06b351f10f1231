/**
 * The chat as a person sees it: the real binary on a pseudo-terminal, its output interpreted by a
 * terminal emulator, and the screen (scrollback included) checked after every step.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadPty, PtyUnavailableError } from "../../src/tools/environments/pty.js";
import { BIN, cleanEnv, runHermes, sandbox } from "../support/cli.js";
import { openaiConfig, useFakeLlm } from "../support/e2e.js";
import type { FakeLlm } from "../support/fake-llm.js";
import { skipBecause } from "../support/skip.js";
import { createScreen, type Screen } from "../support/terminal-screen.js";

let fake: FakeLlm;
useFakeLlm((f) => {
  fake = f;
});

const pty = await loadPty();
const SPINNER_ROW = /^ {2}[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] /;
const THINKING = /^ {2}[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] thinking \d+\.\ds$/;
/** The spinner row of a running terminal command. */
const toolSpinner = (command: string) => (rows: string[]) =>
  SPINNER_ROW.test(rows.at(-1) ?? "") && (rows.at(-1) ?? "").includes(`💻 terminal: ${command}`);
const SGR = /\x1b\[[0-9;]*m/;
const CONFIG = "sessions:\n  auto_title: off\nagent:\n  retry_base_delay: 0.05\n";

interface Run {
  screen: Screen;
  raw(): string;
  type(keys: string): void;
  /** Waits until the rows (scrollback included) satisfy `check`; fails with the screen. */
  until(what: string, check: (rows: string[]) => boolean): Promise<string[]>;
  exited: Promise<number>;
  work: string;
}

/** Runs `hermes ARGS` on a 120×40 pseudo-terminal; `color` leaves NO_COLOR unset. */
function onTerminal(args: string[], opts: { color?: boolean; config?: string } = {}): Run {
  if (pty instanceof PtyUnavailableError) throw pty;
  const box = sandbox(openaiConfig(fake, CONFIG + (opts.config ?? "")));
  const env = Object.fromEntries(
    Object.entries(cleanEnv({ HERMES_HOME: box.home })).filter(
      (e): e is [string, string] => typeof e[1] === "string" && !(opts.color && e[0] === "NO_COLOR"),
    ),
  );
  const term = pty(process.execPath, [BIN, ...args], { cwd: box.work, env });
  const screen = createScreen(120, 40);
  let raw = "";
  let applied = Promise.resolve();
  term.onData((d) => {
    raw += d;
    applied = applied.then(() => screen.write(d));
  });
  const exited = new Promise<number>((resolve) => term.onExit((e) => resolve(e.exitCode)));
  exited.then(() => term.kill()).catch(() => undefined);
  const until = async (what: string, check: (rows: string[]) => boolean): Promise<string[]> => {
    for (let i = 0; i < 750; i++) {
      await applied;
      const rows = screen.rows();
      if (check(rows)) return rows;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`timed out waiting for ${what}; the screen:\n${screen.rows().join("\n")}`);
  };
  return {
    screen,
    raw: () => raw,
    type: (keys) => term.write(keys),
    until,
    exited,
    work: box.work,
  };
}

const hasRow = (text: string) => (rows: string[]) => rows.includes(text);

describe.skipIf(skipBecause("the chat on a terminal", pty instanceof PtyUnavailableError && pty.message))(
  "the chat on a terminal",
  () => {
    it("shows a spinner with elapsed time until the first token, and leaves no frame in the scrollback", async () => {
      fake.enqueue({ delayMs: 2500, text: "The answer is 42." });
      const run = onTerminal([]);
      await run.until("the prompt", (rows) => rows.at(-1) === "❯");
      run.type("what is the answer?\r");
      await run.until("the spinner", (rows) => rows.some((r) => THINKING.test(r)));
      // The elapsed time moves on while the model has not answered.
      await run.until("a second passed", (rows) => rows.some((r) => /thinking [1-9]\.\ds$/.test(r)));
      const rows = await run.until("the answer and the next prompt", (r) => r.at(-1) === "❯" && r.length > 3);
      expect(rows).toEqual([
        "Hermes Agent · test-model · /help for commands, Ctrl+C twice to exit",
        "❯ what is the answer?",
        "The answer is 42.",
        "❯",
      ]);
      run.type("/exit\r");
      expect(await run.exited).toBe(0);
      expect(run.screen.rows().some((r) => SPINNER_ROW.test(r) || r.includes("thinking"))).toBe(false);
    }, 60_000);

    it("text typed while a tool runs stays on its own line below the spinner; Enter queues it as [steer]", async () => {
      const wait = "while [ ! -f go ]; do sleep 0.1; done";
      fake.enqueue(
        { toolCalls: [{ name: "terminal", arguments: { command: wait } }] },
        { text: "All done." },
      );
      const run = onTerminal([]);
      await run.until("the prompt", (rows) => rows.at(-1) === "❯");
      run.type("run the loop\r");
      await run.until("the tool spinner", toolSpinner(wait));
      run.type("also update the docs");
      const during = await run.until("the typed line", hasRow("❯ also update the docs"));
      // Its own row, right under the spinner, which keeps ticking above it untouched.
      expect(during.at(-1)).toBe("❯ also update the docs");
      expect(during.at(-2)).toMatch(/^ {2}[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] 💻 terminal: while \[ ! -f go \].* \d+\.\ds$/);
      await new Promise((r) => setTimeout(r, 300));
      expect((await run.until("still there", () => true)).at(-1)).toBe("❯ also update the docs");
      run.type("\r");
      await run.until("the steer line", hasRow("  [steer] also update the docs"));
      writeFileSync(join(run.work, "go"), "");
      const rows = await run.until("the answer", (r) => r.includes("All done.") && r.at(-1) === "❯");
      expect(rows.filter((r) => r.includes("also update the docs"))).toEqual([
        "  [steer] also update the docs",
      ]);
      expect(rows.some((r) => SPINNER_ROW.test(r))).toBe(false);
      expect(rows.filter((r) => r.startsWith(`  💻 terminal: ${wait} ✓ `))).toHaveLength(1);
      run.type("/exit\r");
      expect(await run.exited).toBe(0);
      const lastRequest = JSON.stringify(fake.requests.at(-1)?.body ?? {});
      expect(lastRequest).toContain("also update the docs");
    }, 60_000);

    it("an approval prompt mid-turn gets the terminal to itself; the unsent line comes back after it", async () => {
      fake.enqueue(
        { delayMs: 1500, toolCalls: [{ name: "terminal", arguments: { command: "rm -rf src" } }] },
        { text: "Removed it." },
      );
      const run = onTerminal([], { config: "approvals:\n  mode: manual\n" });
      mkdirSync(join(run.work, "src"));
      await run.until("the prompt", (rows) => rows.at(-1) === "❯");
      run.type("remove src\r");
      await run.until("the spinner", (rows) => rows.some((r) => THINKING.test(r)));
      run.type("and then");
      await run.until("the typed line", hasRow("❯ and then"));
      const asking = await run.until("the approval question", (rows) =>
        (rows.at(-1) ?? "").includes("[d]eny"),
      );
      expect(asking.join("\n")).not.toContain("and then");
      expect(asking.some((r) => SPINNER_ROW.test(r))).toBe(false);
      run.type("o\r");
      const rows = await run.until(
        "the answer",
        (r) => r.includes("Removed it.") && r.at(-1) === "❯ and then",
      );
      expect(rows.some((r) => SPINNER_ROW.test(r))).toBe(false);
      expect(existsSync(join(run.work, "src"))).toBe(false);
      run.type("\x15/exit\r");
      expect(await run.exited).toBe(0);
    }, 60_000);

    it("an interrupted tool shows as interrupted, not ✓", async () => {
      fake.enqueue({ toolCalls: [{ name: "terminal", arguments: { command: "sleep 30" } }] });
      const run = onTerminal([]);
      await run.until("the prompt", (rows) => rows.at(-1) === "❯");
      run.type("wait a while\r");
      await run.until("the tool spinner", toolSpinner("sleep 30"));
      run.type("\x03");
      const rows = await run.until(
        "the turn to end",
        (r) => r.includes("  [interrupted]") && r.at(-1) === "❯",
      );
      expect(rows.find((r) => r.includes("terminal: sleep 30"))).toMatch(
        /^ {2}💻 terminal: sleep 30 ⊘ interrupted \d+\.\ds$/,
      );
      expect(rows.join("\n")).not.toContain("✓");
      expect(rows).toContain("  [interrupt] stopping… (Ctrl+C again to exit)");
      run.type("/exit\r");
      expect(await run.exited).toBe(0);
    }, 60_000);

    it("errors are red on a terminal; with NO_COLOR there is not one colour escape", async () => {
      const failure = {
        fault: { kind: "http" as const, status: 400, body: { error: { message: "bad request" } } },
      };
      fake.enqueue(failure);
      const coloured = onTerminal([], { color: true });
      await coloured.until("the prompt", (rows) => rows.at(-1) === "❯");
      coloured.type("hello\r");
      await coloured.until("the error", (rows) => rows.some((r) => r.startsWith("  [error]")));
      expect(coloured.screen.colourOf("[error]")).toBe(1);
      coloured.type("/exit\r");
      expect(await coloured.exited).toBe(0);

      fake.enqueue(failure);
      const plain = onTerminal([]);
      await plain.until("the prompt", (rows) => rows.at(-1) === "❯");
      plain.type("hello\r");
      await plain.until("the error", (rows) => rows.some((r) => r.startsWith("  [error]")));
      plain.type("/exit\r");
      expect(await plain.exited).toBe(0);
      expect(plain.raw()).not.toMatch(SGR);
      expect(plain.screen.colourOf("[error]")).toBeUndefined();
    }, 60_000);

    it("leaving with Ctrl+D or Ctrl+C twice puts the shell's prompt on a fresh line", async () => {
      const viaEof = onTerminal([]);
      await viaEof.until("the prompt", (rows) => rows.at(-1) === "❯");
      viaEof.type("\x04");
      expect(await viaEof.exited).toBe(0);
      await viaEof.until("output applied", () => true);
      expect(viaEof.screen.cursor().x).toBe(0);

      const viaInterrupt = onTerminal([]);
      await viaInterrupt.until("the prompt", (rows) => rows.at(-1) === "❯");
      viaInterrupt.type("\x03");
      await viaInterrupt.until("the hint", hasRow("(press Ctrl+C again to exit, or type /exit)"));
      viaInterrupt.type("\x03");
      expect(await viaInterrupt.exited).toBe(130);
      await viaInterrupt.until("output applied", () => true);
      expect(viaInterrupt.screen.cursor().x).toBe(0);
    }, 60_000);

    it("-z on a terminal prints the answer alone: no spinner and no escape codes on stdout or stderr", async () => {
      fake.enqueue({ fault: { kind: "http", status: 500 } }, { delayMs: 1500, text: "The answer is 42." });
      const run = onTerminal(["-z", "what is the answer?"], { color: true });
      expect(await run.exited).toBe(0);
      // Provider trouble still shows (stderr), plain; then the answer (stdout).
      expect(run.raw()).toMatch(/^ {2}\[retry\] [^\x1b]*\r\nThe answer is 42\.\r\n$/);
    }, 60_000);

    it("chat -q shows the spinner on a terminal's stderr, and none when stderr is not a terminal", async () => {
      fake.enqueue({ delayMs: 1500, text: "The answer is 42." });
      const run = onTerminal(["chat", "-q", "what is the answer?"]);
      await run.until("the spinner", (rows) => rows.some((r) => THINKING.test(r)));
      expect(await run.exited).toBe(0);
      const rows = await run.until("output applied", () => true);
      expect(rows).toEqual(["The answer is 42."]);

      fake.enqueue({ delayMs: 1500, text: "The answer is 42." });
      const box = sandbox(openaiConfig(fake, CONFIG));
      const piped = await runHermes(["chat", "-q", "what is the answer?"], {
        env: cleanEnv({ HERMES_HOME: box.home }),
        cwd: box.work,
      });
      expect(piped.code, piped.stderr).toBe(0);
      expect(piped.stdout).toBe("The answer is 42.\n");
      expect(piped.stderr).not.toContain("thinking");
      expect(piped.stderr).not.toContain("\x1b");
    }, 60_000);
  },
);
