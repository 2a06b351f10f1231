import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AgentEvent } from "../../src/agent/events.js";
import { DEFAULT_CONFIG } from "../../src/core/config-defaults.js";
import { CONFIG_RULES } from "../../src/core/config-rules.js";
import type { ChatMessage } from "../../src/llm/types.js";
import {
  autoTitleEnabled,
  cleanTitle,
  TITLE_INSTRUCTION,
  titleMessages,
} from "../../src/runtime/auto-title.js";
import { nextInLineage, type RecorderInfo, SessionRecorder } from "../../src/runtime/recorder.js";
import { SqliteSessionStore } from "../../src/state/sqlite/store.js";
import { tempDir } from "../support/temp.js";

let store: SqliteSessionStore;
const holders: DatabaseSync[] = [];
afterEach(async () => {
  await store?.close();
  for (const h of holders.splice(0)) h.close();
});

function setup(messages: ChatMessage[], extra: Partial<RecorderInfo> = {}): SessionRecorder {
  store = new SqliteSessionStore(join(tempDir("hermes-rec-"), "state.db"));
  return new SessionRecorder(store, {
    sessionId: "s1",
    source: "cli",
    model: "m",
    provider: "p",
    cwd: "/tmp",
    resumed: false,
    messages: () => messages,
    onFailure: () => {},
    ...extra,
  });
}

function feed(rec: SessionRecorder, messages: ChatMessage[], ...more: ChatMessage[]): void {
  for (const m of more) {
    messages.push(m);
    rec.handle({ type: "message", message: m });
  }
}

const usage = (input: number, output: number): AgentEvent => ({
  type: "usage",
  call: {
    inputTokens: input,
    outputTokens: output,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
  },
  total: {
    inputTokens: input,
    outputTokens: output,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
  },
  model: "priced-model",
  provider: "p",
});

describe("SessionRecorder bookkeeping", () => {
  it("adds token counters and the estimated cost of each call to the session row", () => {
    const msgs: ChatMessage[] = [];
    const rec = setup(msgs, {
      pricing: (model) => (model === "priced-model" ? { input: 2, output: 10 } : undefined),
    });
    feed(rec, msgs, { role: "user", content: "hi" });
    rec.handle(usage(1_000_000, 100_000));
    rec.handle(usage(500_000, 0));
    rec.handle({ ...usage(1000, 1000), model: "unpriced" } as AgentEvent);
    expect(store.getSession("s1")).toMatchObject({
      inputTokens: 1_501_000,
      outputTokens: 101_000,
      costUsd: 4,
    });
  });

  it("copies a branch's history into a new row that names its parent, and drops the last messages", () => {
    const parent: ChatMessage[] = [
      { role: "system", content: "SYS" },
      { role: "user", content: "one" },
      { role: "assistant", content: "two" },
    ];
    const rec = setup([...parent], { parentSessionId: "p0", title: "side path" });
    store.createSession({ id: "p0", source: "cli" });
    rec.copyHistory(parent);
    expect(store.getSession("s1")).toMatchObject({
      parentSessionId: "p0",
      title: "side path",
      systemPrompt: "SYS",
      messageCount: 2,
    });
    rec.dropLast(1);
    expect(store.loadMessages("s1").map((m) => m.message.role)).toEqual(["user"]);
    expect(store.getSession("s1")?.messageCount).toBe(1);
  });

  it("continues a compressed session under the next title in its lineage; -r TITLE finds the newest", () => {
    const msgs: ChatMessage[] = [{ role: "system", content: "SYS" }];
    const rec = setup(msgs);
    feed(rec, msgs, { role: "user", content: "start" });
    rec.setTitle("fix auth");
    const compress = (from: string, to: string): void =>
      rec.handle({
        type: "compression",
        parentSessionId: from,
        sessionId: to,
        messages: [
          { role: "system", content: "SYS" },
          { role: "user", content: `summary ${to}` },
        ],
        tokensBefore: 1000,
        tokensAfter: 100,
        mode: "summary",
      } as AgentEvent);
    compress("s1", "s2");
    compress("s2", "s3");
    expect(store.getSession("s1")).toMatchObject({ title: "fix auth", endReason: "compression" });
    expect(store.getSession("s2")).toMatchObject({ title: "fix auth #2", parentSessionId: "s1" });
    expect(store.getSession("s3")).toMatchObject({ title: "fix auth #3", parentSessionId: "s2" });
    // A subagent of the last continuation is not mistaken for a continuation.
    store.createSession({ id: "child", source: "subagent", parentSessionId: "s3" });
    expect(store.resolveSession("fix auth")?.id).toBe("s3");
    expect(store.resolveSession("fix auth #2")?.id).toBe("s3");
    expect(nextInLineage("a #9")).toBe("a #10");
    expect(nextInLineage("release #1 notes")).toBe("release #1 notes #2");
  });

  it("keeps a script's inner tool calls in the transcript after the message that started it; undo drops them", () => {
    const msgs: ChatMessage[] = [];
    const rec = setup(msgs);
    const inner = (name: string, result: string): AgentEvent => ({
      type: "inner_tool",
      parent: "execute_code",
      name,
      args: { path: "a.txt" },
      result,
      isError: result.startsWith('{"error"'),
      durationMs: 1.5,
    });
    feed(
      rec,
      msgs,
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "execute_code", arguments: "{}" } }],
      },
    );
    rec.handle(inner("read_file", "x".repeat(10_000)));
    rec.handle(inner("patch", '{"error": "no match"}'));
    feed(rec, msgs, { role: "tool", tool_call_id: "c1", name: "execute_code", content: "{}" });
    const calls = store.loadInnerToolCalls("s1");
    expect(calls.map((c) => [c.afterSeq, c.toolName, c.isError])).toEqual([
      [1, "read_file", false],
      [1, "patch", true],
    ]);
    expect(calls[0]!.result).toMatch(/^x{4000}… \[6000 more chars\]$/);
    expect(calls[0]!.args).toEqual({ path: "a.txt" });
    // The conversation itself holds none of them.
    expect(store.loadMessages("s1").map((m) => m.message.role)).toEqual(["user", "assistant", "tool"]);
    rec.dropLast(3);
    expect(store.loadInnerToolCalls("s1")).toEqual([]);
  });

  it("titles an untitled session once after the first answer, in the background, never over a user title", async () => {
    const msgs: ChatMessage[] = [];
    const asked: string[][] = [];
    const rec = setup(msgs, {
      autoTitle: async (u, r) => {
        asked.push([u, r]);
        return "Planning a trip";
      },
    });
    feed(rec, msgs, { role: "user", content: "help me plan a trip" }, { role: "assistant", content: "sure" });
    rec.handle({ type: "done", status: "completed", finalText: "sure" });
    rec.handle({ type: "done", status: "completed", finalText: "again" });
    await rec.settled();
    expect(asked).toEqual([["help me plan a trip", "sure"]]);
    expect(store.getSession("s1")?.title).toBe("Planning a trip");

    // The user's /title wins, even when it lands while the call runs.
    const msgs2: ChatMessage[] = [];
    let release: (t: string | undefined) => void = () => {};
    const rec2 = new SessionRecorder(store, {
      sessionId: "s2",
      source: "cli",
      model: "m",
      provider: "p",
      cwd: "/",
      resumed: false,
      messages: () => msgs2,
      onFailure: () => {},
      autoTitle: () => new Promise((r) => (release = r)),
    });
    feed(rec2, msgs2, { role: "user", content: "x" });
    rec2.handle({ type: "done", status: "completed", finalText: "y" });
    rec2.setTitle("mine");
    release("generated");
    await rec2.settled();
    expect(store.getSession("s2")?.title).toBe("mine");

    // A failed or empty answer leaves no title and raises nothing.
    const msgs3: ChatMessage[] = [];
    const rec3 = new SessionRecorder(store, {
      sessionId: "s3",
      source: "cli",
      model: "m",
      provider: "p",
      cwd: "/",
      resumed: false,
      messages: () => msgs3,
      onFailure: () => {},
      autoTitle: () => Promise.reject(new Error("down")),
    });
    feed(rec3, msgs3, { role: "user", content: "x" });
    rec3.handle({ type: "done", status: "failed", finalText: "" });
    rec3.handle({ type: "done", status: "completed", finalText: "y" });
    await rec3.settled();
    expect(store.getSession("s3")?.title).toBeNull();
  });
});

describe("SessionRecorder when state.db fails for a while", () => {
  function watched(extra: Partial<RecorderInfo> = {}) {
    const msgs: ChatMessage[] = [];
    const failures: string[] = [];
    const recovered: string[] = [];
    const rec = setup(msgs, {
      onFailure: (m) => failures.push(m),
      onRecovered: (m) => recovered.push(m),
      waitWarnMs: 50,
      ...extra,
    });
    const other = new DatabaseSync(store.path);
    holders.push(other);
    const say = (content: string): void => feed(rec, msgs, { role: "user", content });
    return { rec, failures, recovered, other, say };
  }
  const stored = (): string[] => store.loadMessages("s1").map((m) => String(m.message.content));

  it("another process holding the lock: warns once, keeps every message, says when it saves again", async () => {
    const { failures, recovered, other, say } = watched();
    say("one");
    other.exec("BEGIN IMMEDIATE");
    say("two");
    say("three");
    await vi.waitFor(() => expect(failures).toHaveLength(1), { timeout: 5_000 });
    expect(failures[0]).toMatch(/waiting for state\.db: another Hermes process has held its write lock/);
    say("four");
    await new Promise((r) => setTimeout(r, 200));
    expect(failures).toHaveLength(1);
    expect(recovered).toEqual([]);
    other.exec("COMMIT");
    expect(await store.flush(5_000)).toBe(0);
    expect(recovered).toEqual(["Session history is being saved again."]);
    expect(stored()).toEqual(["one", "two", "three", "four"]);
    say("five");
    expect(stored()).toEqual(["one", "two", "three", "four", "five"]);
    expect(failures).toHaveLength(1);
  });

  it("a write that fails outright is kept with everything after it and retried until it succeeds", async () => {
    const { rec, failures, recovered, other, say } = watched();
    other.exec(`CREATE TABLE fault (on_ INTEGER);
      INSERT INTO fault VALUES (0);
      CREATE TRIGGER fail_insert BEFORE INSERT ON messages WHEN (SELECT on_ FROM fault)
      BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END;`);
    say("one");
    other.exec("UPDATE fault SET on_ = 1");
    say("two");
    rec.handle(usage(10, 5));
    say("three");
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(/could not be saved \(disk I\/O error\).*kept and retried/);
    expect(stored()).toEqual(["one"]);
    // Nothing behind the failed message was written out of order (the usage waits too).
    expect(store.getSession("s1")?.inputTokens).toBe(0);
    other.exec("UPDATE fault SET on_ = 0");
    // No new event needed: the recorder retries on its own.
    await vi.waitFor(() => expect(recovered).toHaveLength(1), { timeout: 5_000 });
    expect(stored()).toEqual(["one", "two", "three"]);
    expect(store.getSession("s1")?.inputTokens).toBe(10);
    say("four");
    expect(stored()).toEqual(["one", "two", "three", "four"]);
    expect(failures).toHaveLength(1);
    expect(failures.join(" ")).not.toMatch(/no longer/);
  });

  it("reports what it could not write when the session ends while writes still fail", () => {
    const { rec, failures, other, say } = watched();
    other.exec(`CREATE TRIGGER fail_insert BEFORE INSERT ON messages
      BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END;`);
    say("one");
    rec.end("exit");
    expect(failures).toHaveLength(2);
    expect(failures[1]).toMatch(/^2 writes of this session could not be saved to state\.db/);
  });
});

describe("title helpers", () => {
  it("cleans a model's answer into one short line", () => {
    expect(cleanTitle('Title: "Fixing the nginx proxy."\nextra')).toBe("Fixing the nginx proxy");
    expect(cleanTitle("<think>hmm</think>\n\n  Débogage du build  ")).toBe("Débogage du build");
    expect(cleanTitle("   \n")).toBeUndefined();
    expect([...(cleanTitle("x".repeat(200)) ?? "")].length).toBe(60);
  });

  it("builds a request that opens with our instruction and carries both sides of the exchange", () => {
    const m = titleMessages("question?", "answer!");
    expect(m[0]).toEqual({ role: "system", content: TITLE_INSTRUCTION });
    expect(String(m[1]!.content)).toContain("question?");
    expect(String(m[1]!.content)).toContain("answer!");
  });

  it("follows sessions.auto_title: chat = interactive only, always, off", () => {
    expect(autoTitleEnabled("chat", true)).toBe(true);
    expect(autoTitleEnabled("chat", false)).toBe(false);
    expect(autoTitleEnabled("always", false)).toBe(true);
    expect(autoTitleEnabled("off", true)).toBe(false);
    expect(DEFAULT_CONFIG.sessions.auto_title).toBe("chat");
    expect(CONFIG_RULES["sessions.auto_title"]!("sometimes")).toMatch(
      /must be one of "chat", "always", "off"/,
    );
    expect(CONFIG_RULES["sessions.auto_title"]!("off")).toBeUndefined();
  });
});
