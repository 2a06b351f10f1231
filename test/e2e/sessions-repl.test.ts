import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { TITLE_INSTRUCTION } from "../../src/runtime/auto-title.js";
import { loadPty, PtyUnavailableError } from "../../src/tools/environments/pty.js";
import { BIN, cleanEnv, runHermes, sandbox } from "../support/cli.js";
import { useFakeLlm } from "../support/e2e.js";
import type { FakeLlm, RecordedRequest } from "../support/fake-llm.js";
import { skipBecause } from "../support/skip.js";

let fake: FakeLlm;
useFakeLlm((f) => {
  fake = f;
});

const config = (extra = ""): string =>
  `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: test-model\n${extra}`;
const envFor = (home: string): NodeJS.ProcessEnv => cleanEnv({ HERMES_HOME: home });

interface WireMessage {
  role: string;
  content: unknown;
}
const messagesOf = (req: RecordedRequest): WireMessage[] =>
  (req.body as { messages: WireMessage[] }).messages;
const isTitleCall = (req: RecordedRequest): boolean =>
  String(messagesOf(req)[0]?.content ?? "").startsWith(TITLE_INSTRUCTION);
const lastUser = (req: RecordedRequest): string =>
  String(
    messagesOf(req)
      .filter((m) => m.role === "user")
      .at(-1)?.content ?? "",
  );

/** Answers each conversation turn with "re: <last user message>", and title calls with `title`. */
function echo(title = "Kyoto trip planning"): void {
  fake.setResponder((req) =>
    isTitleCall(req) ? { text: `Title: "${title}."` } : { text: `re: ${lastUser(req)}` },
  );
}

interface Row {
  id: string;
  title: string | null;
  parent_session_id: string | null;
  message_count: number;
  input_tokens: number;
}
function readDb(home: string): { sessions: Row[]; messages: (id: string) => string[] } {
  const db = new DatabaseSync(join(home, "state.db"), { readOnly: true });
  const sessions = db.prepare("SELECT * FROM sessions ORDER BY started_at, rowid").all() as unknown as Row[];
  const byId = new Map<string, string[]>();
  for (const s of sessions) {
    const rows = db
      .prepare("SELECT role, content FROM messages WHERE session_id = ? ORDER BY seq")
      .all(s.id) as Array<{ role: string; content: string }>;
    byId.set(
      s.id,
      rows.map((r) => `${r.role}: ${r.content}`),
    );
  }
  expect(db.prepare("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
  db.close();
  return { sessions, messages: (id) => byId.get(id) ?? [] };
}

describe("chat session commands", () => {
  it("/undo N takes back several exchanges at once, in the chat and in state.db", async () => {
    const box = sandbox(config());
    echo();
    const r = await runHermes([], {
      env: envFor(box.home),
      cwd: box.work,
      input: "one\ntwo\nthree\n/undo 0\n/undo 2\nfour\n/undo 9\nfive\n",
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("Usage: /undo [N]");
    expect(r.stdout).toContain('Undone 2 messages, back to before "two"');
    expect(r.stdout).toContain('Undone 2 messages (all there were), back to before "one"');
    const convo = fake.requests.filter((q) => !isTitleCall(q));
    const before = messagesOf(convo.at(-1)!).map((m) => `${m.role}: ${m.content}`);
    expect(before.slice(1)).toEqual(["user: five"]);
    const db = readDb(box.home);
    expect(db.messages(db.sessions[0]!.id)).toEqual(["user: five", "assistant: re: five"]);
  });

  it("/undo, /retry and /branch keep state.db in step with the chat; resuming matches", async () => {
    const box = sandbox(config());
    const env = envFor(box.home);
    echo();
    const r = await runHermes([], {
      env,
      cwd: box.work,
      input:
        "first question\nsecond question\n/undo\nthird question\n/retry\n/branch side quest\nfourth in branch\n",
    });
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Undone: "second question"');
    expect(r.stdout).toContain("Retrying your last message");
    const branchId = /Branched into session ([0-9a-f-]{36})/.exec(r.stdout)?.[1];
    expect(branchId).toBeDefined();

    const convo = fake.requests.filter((q) => !isTitleCall(q));
    expect(convo.map(lastUser)).toEqual([
      "first question",
      "second question",
      "third question",
      "third question",
      "fourth in branch",
    ]);
    // After /undo the model never sees the dropped turn; /retry resends without the old answer.
    const retried = messagesOf(convo[3]!).map((m) => `${m.role}: ${m.content}`);
    expect(retried.slice(1)).toEqual([
      "user: first question",
      "assistant: re: first question",
      "user: third question",
    ]);
    // Piped input with the default sessions.auto_title (chat): no title calls.
    expect(fake.requests.some(isTitleCall)).toBe(false);

    const db = readDb(box.home);
    expect(db.sessions).toHaveLength(2);
    const [main, branch] = db.sessions;
    expect(branch!.id).toBe(branchId);
    expect(branch!.parent_session_id).toBe(main!.id);
    expect(branch!.title).toBe("side quest");
    expect(main!.parent_session_id).toBeNull();
    expect(db.messages(main!.id)).toEqual([
      "user: first question",
      "assistant: re: first question",
      "user: third question",
      "assistant: re: third question",
    ]);
    expect(main!.message_count).toBe(4);
    expect(main!.input_tokens).toBeGreaterThan(0);
    expect(db.messages(branch!.id)).toEqual([
      ...db.messages(main!.id),
      "user: fourth in branch",
      "assistant: re: fourth in branch",
    ]);

    // Resuming the original sends exactly what state.db holds after the undo.
    const resumed = await runHermes(["-r", main!.id, "-z", "carry on"], { env, cwd: box.work });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe("re: carry on\n");
    const sent = messagesOf(fake.requests.at(-1)!).map((m) => `${m.role}: ${m.content}`);
    expect(sent.slice(1)).toEqual([...db.messages(main!.id), "user: carry on"]);
    // The system prompt of the branch is the parent's, byte for byte (same cached prefix).
    expect(messagesOf(convo[4]!)[0]).toEqual(messagesOf(convo[2]!)[0]);
  }, 60_000);

  it("/undo with nothing to undo and /branch before any message say so", async () => {
    const box = sandbox(config());
    const r = await runHermes([], {
      env: envFor(box.home),
      cwd: box.work,
      input: "/undo\n/branch\n/retry\n",
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Nothing to undo.");
    expect(r.stdout).toContain("Cannot branch: nothing to branch from yet");
    expect(r.stdout).toContain("Nothing to retry.");
    expect(fake.requests).toHaveLength(0);
  }, 30_000);
});

describe("generated session titles", () => {
  it("sessions.auto_title: always names a one-shot session; it shows in 'hermes sessions list'", async () => {
    const box = sandbox(config("sessions:\n  auto_title: always\n"));
    const env = envFor(box.home);
    echo();
    const r = await runHermes(["-z", "plan my trip to kyoto"], { env, cwd: box.work });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("re: plan my trip to kyoto\n");
    expect(fake.requests).toHaveLength(2);
    const titleCall = fake.requests.find(isTitleCall)!;
    expect(String(messagesOf(titleCall)[1]!.content)).toContain("plan my trip to kyoto");
    expect(String(messagesOf(titleCall)[1]!.content)).toContain("re: plan my trip to kyoto");
    const list = await runHermes(["sessions", "list"], { env, cwd: box.work });
    expect(list.stdout).toContain("Kyoto trip planning");
  }, 30_000);

  it("the default leaves one-shots untitled and sends no extra request; a user title is never replaced", async () => {
    const box = sandbox(config());
    const env = envFor(box.home);
    echo();
    expect((await runHermes(["-z", "hello"], { env, cwd: box.work })).code).toBe(0);
    expect(fake.requests).toHaveLength(1);
    expect(readDb(box.home).sessions[0]!.title).toBeNull();

    const titled = sandbox(config("sessions:\n  auto_title: always\n"));
    const r = await runHermes([], {
      env: envFor(titled.home),
      cwd: titled.work,
      input: "/title my own name\nhi\n",
    });
    expect(r.code).toBe(0);
    expect(readDb(titled.home).sessions.map((s) => s.title)).toEqual(["my own name"]);
    // A failing title model leaves the session untitled and the run unharmed.
    const failing = sandbox(config("sessions:\n  auto_title: always\n"));
    fake.setResponder((req) =>
      isTitleCall(req) ? { fault: { kind: "http", status: 400 } } : { text: `re: ${lastUser(req)}` },
    );
    const f = await runHermes(["-z", "hello again"], { env: envFor(failing.home), cwd: failing.work });
    expect(f.code).toBe(0);
    expect(f.stdout).toBe("re: hello again\n");
    expect(f.stderr).toBe("");
    expect(readDb(failing.home).sessions[0]!.title).toBeNull();
  }, 60_000);
});

const pty = await loadPty();

describe.skipIf(
  skipBecause("the chat on a real terminal", pty instanceof PtyUnavailableError && pty.message),
)("the chat on a real terminal", () => {
  it("clarify shows an arrow-key picker, and the session gets a generated title", async () => {
    if (pty instanceof PtyUnavailableError) return;
    const box = sandbox(config());
    fake.setResponder((req) => {
      if (isTitleCall(req)) return { text: "Choosing a database" };
      const last = messagesOf(req).at(-1)!;
      if (last.role === "tool") return { text: `going with ${String(last.content)}` };
      return {
        toolCalls: [
          {
            name: "clarify",
            arguments: { question: "Which database?", choices: ["postgres", "sqlite", "mysql"] },
          },
        ],
      };
    });
    const vars = Object.fromEntries(
      Object.entries(envFor(box.home)).filter((e): e is [string, string] => typeof e[1] === "string"),
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
      term.write("pick a database for me\r");
      let at = await waitFor("Enter or a number to choose");
      expect(screen).toContain("❯ 1. postgres");
      term.write("\x1b[B");
      at = await waitFor("❯ 2. sqlite", at);
      term.write("\r");
      await waitFor("going with", at);
      const toolResult = messagesOf(fake.requests.filter((q) => !isTitleCall(q)).at(-1)!).at(-1)!;
      expect(String(toolResult.content)).toContain("sqlite");
      term.write("/exit\r");
      expect(await exited).toBe(0);
    } finally {
      term.kill();
    }
    expect(fake.requests.filter(isTitleCall)).toHaveLength(1);
    const db = readDb(box.home);
    expect(db.sessions.map((x) => x.title)).toEqual(["Choosing a database"]);
    const list = await runHermes(["sessions", "list"], { env: envFor(box.home), cwd: box.work });
    expect(list.stdout).toContain("Choosing a database");
  }, 60_000);
});
