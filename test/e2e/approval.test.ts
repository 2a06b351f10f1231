import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ApprovalSession } from "../../src/tools/approval/session.js";
import { loadPty, PtyUnavailableError } from "../../src/tools/environments/pty.js";
import { BIN, cleanEnv, runHermes, sandbox } from "../support/cli.js";
import { useFakeLlm } from "../support/e2e.js";
import type { FakeLlm, RecordedRequest } from "../support/fake-llm.js";
import { skipBecause } from "../support/skip.js";

let fake: FakeLlm;
useFakeLlm((f) => {
  fake = f;
});

const config = (extra = "approvals:\n  mode: manual\n") =>
  `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: test-model\nagent:\n  api_max_retries: 0\n${extra}`;

/** A hermetic environment; HOME is a sandbox folder too, so even a gate failure could not hurt. */
const env = (box: { home: string; work: string }) =>
  cleanEnv({ HERMES_HOME: box.home, HOME: join(box.work, "..", "user-home"), OPENAI_API_KEY: "test-key" });

const terminal = (command: string) => ({ toolCalls: [{ name: "terminal", arguments: { command } }] });

/** The tool result the agent sent back in a request. */
function toolResult(req: RecordedRequest): Record<string, unknown> {
  const messages = (req.body as { messages: { role: string; content: string }[] }).messages;
  return JSON.parse(messages.filter((m) => m.role === "tool").at(-1)!.content) as Record<string, unknown>;
}

function boxWithSrc(extra?: string) {
  const box = sandbox(config(extra));
  mkdirSync(join(box.work, "..", "user-home"), { recursive: true });
  mkdirSync(join(box.work, "src"));
  writeFileSync(join(box.work, "src", "main.ts"), "precious\n");
  return box;
}

describe("dangerous-command approval in the CLI", () => {
  it("hermes -z: rm -rf ~ is blocked (hardline), the model reads why, and its answer is printed", async () => {
    const box = boxWithSrc();
    fake.enqueue(terminal("rm -rf ~"), { text: "I will not delete your home folder." });
    const r = await runHermes(["-z", "clean up everything"], { env: env(box), cwd: box.work });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("I will not delete your home folder.\n");
    expect(String(toolResult(fake.requests[1]!).error)).toMatch(
      /^Blocked: recursive delete of the whole home/,
    );
    expect(existsSync(join(box.work, "..", "user-home"))).toBe(true);
  });

  it("hermes -z: a flagged command is denied for lack of anyone to ask; --yolo runs it", async () => {
    const box = boxWithSrc();
    execFileSync("git", ["init", "-q"], { cwd: box.work });
    fake.enqueue(terminal("git push --force origin main"), { text: "denied" });
    const denied = await runHermes(["-z", "push"], { env: env(box), cwd: box.work });
    expect(denied.code).toBe(0);
    expect(String(toolResult(fake.requests[1]!).error)).toMatch(
      /^Command needs approval and this run has no one to ask: git push --force.*rerun with --yolo/,
    );

    fake.enqueue(terminal("git push --force origin main"), { text: "tried" });
    const yolo = await runHermes(["-z", "push", "--yolo"], { env: env(box), cwd: box.work });
    expect(yolo.code).toBe(0);
    expect(yolo.stdout).toBe("tried\n");
    const result = toolResult(fake.requests[3]!);
    expect(result.error).toBeUndefined();
    expect(result.exit_code).not.toBe(0);
    expect(String(result.output)).toMatch(/origin|does not match any/);
  });

  it("--yolo still never runs hardline commands", async () => {
    const box = boxWithSrc();
    fake.enqueue(terminal("sudo rm -rf --no-preserve-root /"), { text: "ok" });
    const r = await runHermes(["-z", "x", "--yolo"], { env: env(box), cwd: box.work });
    expect(r.code).toBe(0);
    expect(String(toolResult(fake.requests[1]!).error)).toMatch(/not even with --yolo/);
  });

  it("/yolo in the chat switches approvals off for the session (piped input has no one to ask)", async () => {
    const box = boxWithSrc();
    fake.enqueue(terminal("rm -rf src"), { text: "first" }, terminal("rm -rf src"), { text: "second" });
    const r = await runHermes([], {
      env: env(box),
      cwd: box.work,
      input: "remove src\n/yolo\nremove src again\n",
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("YOLO mode on");
    expect(String(toolResult(fake.requests[1]!).error)).toMatch(/no one to ask/);
    expect(toolResult(fake.requests[3]!).exit_code).toBe(0);
    expect(existsSync(join(box.work, "src"))).toBe(false);
  });

  it("an 'always' answer saved to config.yaml is honoured by the next process", async () => {
    const box = boxWithSrc();
    const configPath = join(box.home, "config.yaml");
    const session = new ApprovalSession({ mode: "manual", timeoutSeconds: 60, configPath });
    session.approveAlways([
      {
        key: "recursive_delete",
        description: "",
        class: "delete",
        severity: "dangerous",
        command: "rm -rf x",
      },
    ]);
    expect(readFileSync(configPath, "utf8")).toMatch(/command_allowlist:\n\s+- recursive_delete/);
    fake.enqueue(terminal("rm -rf src"), { text: "removed" });
    const r = await runHermes(["-z", "remove src"], { env: env(box), cwd: box.work });
    expect(r.stdout).toBe("removed\n");
    expect(toolResult(fake.requests[1]!).exit_code).toBe(0);
    expect(existsSync(join(box.work, "src"))).toBe(false);
  });

  it("smart mode (the default) lets the approval model clear a command in a -z run", async () => {
    const box = boxWithSrc("");
    let agentTurn = 0;
    fake.setResponder((req) => {
      const first = (req.body as { messages: { content: string }[] }).messages[0]?.content ?? "";
      if (first.startsWith("You review shell commands"))
        return { text: '{"risk":"low","reason":"scratch folder"}' };
      agentTurn += 1;
      return agentTurn === 1 ? terminal("rm -rf src") : { text: "cleared by the judge" };
    });
    const r = await runHermes(["-z", "remove src"], { env: env(box), cwd: box.work });
    expect(r.stdout).toBe("cleared by the judge\n");
    expect(fake.requests).toHaveLength(3);
    expect(existsSync(join(box.work, "src"))).toBe(false);
  });
});

const pty = await loadPty();

describe.skipIf(
  skipBecause("the approval prompt on a real terminal", pty instanceof PtyUnavailableError && pty.message),
)("the approval prompt on a real terminal", () => {
  it("asks in the chat, runs the command on 'o', and refuses it on 'd'", async () => {
    if (pty instanceof PtyUnavailableError) return;
    // The turns below are scripted in order; a chat on a terminal would also ask for a session title.
    const box = boxWithSrc("approvals:\n  mode: manual\nsessions:\n  auto_title: off\n");
    mkdirSync(join(box.work, "other"));
    fake.enqueue(terminal("rm -rf src"), { text: "removed it" }, terminal("rm -rf other"), {
      text: "kept it",
    });
    const vars = Object.fromEntries(
      Object.entries(env(box)).filter((e): e is [string, string] => typeof e[1] === "string"),
    );
    const term = pty(process.execPath, [BIN], { cwd: box.work, env: vars });
    let screen = "";
    term.onData((d) => {
      screen += d;
    });
    const exited = new Promise<number>((resolve) => term.onExit((e) => resolve(e.exitCode)));
    const waitFor = async (text: string, from = 0): Promise<number> => {
      for (let i = 0; i < 1000; i++) {
        const at = screen.indexOf(text, from);
        if (at >= 0) return at + text.length;
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error(`timed out waiting for ${JSON.stringify(text)} in:\n${screen}`);
    };
    try {
      await waitFor("❯");
      term.write("remove src\r");
      let at = await waitFor("[o]nce  [s]ession  [a]lways  [d]eny");
      expect(screen).toContain("rm -rf src");
      term.write("o\r");
      at = await waitFor("removed it", at);
      expect(existsSync(join(box.work, "src"))).toBe(false);
      term.write("remove other\r");
      at = await waitFor("[d]eny", at);
      term.write("d\r");
      await waitFor("kept it", at);
      expect(existsSync(join(box.work, "other"))).toBe(true);
      expect(String(toolResult(fake.requests[3]!).error)).toMatch(/^The user denied this command/);
      term.write("/exit\r");
      expect(await exited).toBe(0);
    } finally {
      term.kill();
    }
  });
});
