import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { redactJsonText, redactMessage } from "../../src/state/redaction.js";
import { SqliteSessionStore } from "../../src/state/sqlite/store.js";
import { redactSecrets } from "../../src/tools/redact.js";
import { useRuntime } from "../runtime/support.js";
import { stateDbBytes } from "../support/state-bytes.js";
import { tempDir } from "../support/temp.js";

/**
 * Secrets are redacted at the persistence boundary: whatever a conversation carries, state.db (its
 * tables, its search index, its raw bytes) never holds a key, while the live conversation does.
 */

// Built from parts so no key-shaped literal sits in the source.
const KEY = ["sk", "proj", "Zq7Rw2Lk9Xv4Nb8Tc3Hs6Jd1Fg5Mp0Ya"].join("-");
const KEY_TAIL = KEY.slice(-12);

function ftsHits(path: string, word: string): number {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    let n = 0;
    for (const table of ["messages_fts", "messages_fts_trigram"]) {
      const row = db
        .prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE ${table} MATCH ?`)
        .get(`"${word}"`) as {
        n: number;
      };
      n += Number(row.n);
    }
    return n;
  } finally {
    db.close();
  }
}

describe("redaction at the persistence boundary", () => {
  const h = useRuntime();

  it("a key the user typed, the model's tool-call arguments and its answer never reach state.db; the live conversation keeps it", async () => {
    const t = h.start();
    h.fake.enqueue(
      {
        toolCalls: [
          { name: "todo", arguments: { todos: [{ id: "1", content: `rotate ${KEY}`, status: "pending" }] } },
        ],
      },
      { text: `Noted: your key is ${KEY}.` },
    );
    const agent = t.runtime.newAgent(t.listener("main"));
    const result = await agent.runConversation(`my key is ${KEY}, keep it safe`);
    expect(result.finalText).toContain(KEY);
    // The model saw what the user typed, and the live history still has it everywhere it was.
    expect(JSON.stringify(h.fake.requests[0]!.body.messages)).toContain(KEY);
    const live = JSON.stringify(agent.messages);
    expect(live.split(KEY).length - 1).toBeGreaterThanOrEqual(3);
    await agent.close();

    const store = t.runtime.sessions!;
    const stored = store.loadMessages(agent.sessionId);
    expect(stored.map((m) => m.message.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    const storedText = JSON.stringify(stored);
    expect(storedText).not.toContain(KEY_TAIL);
    expect(storedText).toContain("[REDACTED");
    // The tool call's arguments are still JSON the transcript can read.
    const call = stored[1]!.message;
    if (call.role !== "assistant" || !call.tool_calls) throw new Error("no tool call stored");
    const args = JSON.parse(call.tool_calls[0]!.function.arguments) as { todos: Array<{ content: string }> };
    expect(args.todos[0]!.content).toMatch(/^rotate \[REDACTED/);
    expect(store.search({ query: KEY_TAIL })).toEqual([]);
    expect(store.search({ query: KEY })).toEqual([]);
    store.indexPending();
    expect(ftsHits(store.path, KEY_TAIL)).toBe(0);

    const path = store.path;
    await t.runtime.dispose();
    expect(stateDbBytes(path)).not.toContain(KEY_TAIL);
  });

  it("log lines are redacted by the runtime's logger, and stay JSON", async () => {
    const t = h.start();
    t.runtime.logger.warn(`a failure mentioning ${KEY}`, { detail: { token: KEY }, note: "plain" });
    await t.runtime.logger.flush();
    const lines = readFileSync(join(t.box.home, "logs", "agent.log"), "utf8")
      .trim()
      .split("\n");
    expect(lines.join("\n")).not.toContain(KEY_TAIL);
    const record = JSON.parse(lines.at(-1)!) as { msg: string; note: string };
    expect(record.msg).toMatch(/^a failure mentioning \[REDACTED/);
    expect(record.note).toBe("plain");
  });

  it("titles, ledger payloads, outbound chunks, routes, stored responses and idempotency bodies are redacted too", async () => {
    const path = join(tempDir("hermes-redact-"), "state.db");
    const home = tempDir("hermes-redact-home-");
    const store = new SqliteSessionStore(path, { redact: (text) => redactSecrets(text, home) });
    store.createSession({ id: "s", source: "api_server", title: `key ${KEY}`, systemPrompt: `sys ${KEY}` });
    await store.renameSession("s", `renamed ${KEY}`);
    store.setTitle("s", `titled ${KEY}`);
    store.appendInnerToolCall("s", {
      parentTool: "execute_code",
      toolName: "terminal",
      args: { command: `curl -H 'Authorization: Bearer ${KEY}' https://example.com` },
      result: `{"output":"${KEY}"}`,
      isError: false,
      durationMs: 1,
    });
    const update = { platform: "telegram", updateId: "1", chatId: "100", text: `here: ${KEY}` };
    await store.ledger.recordInbound(update);
    await store.ledger.startInbound("telegram", "1", `prepared ${KEY}`);
    const body = { kind: "text", target: { chatId: "100" }, chunks: [`one ${KEY}`, "two"], sent: 0 };
    const { record } = await store.ledger.recordOutbound({ key: "k", platform: "telegram", body });
    // What is sent now is what the caller wrote; only the stored copy is redacted.
    expect(record.body.chunks?.[0]).toBe(`one ${KEY}`);
    const after = await store.ledger.markChunkSent(record, 0, "m1");
    expect(after.body.chunks?.[1]).toBe("two");
    await store.routing.set("chat", "s", {
      platform: "telegram",
      chatId: "100",
      chatType: "dm",
      userId: "7",
      lastActiveAt: 1,
      title: `route ${KEY}`,
    });
    await store.responses.save(
      {
        id: "resp_1",
        previousResponseId: null,
        sessionId: "s",
        model: "m",
        conversation: [
          { role: "user", content: `remember ${KEY}` },
          { role: "assistant", content: `ok ${KEY}` },
        ],
        response: {
          output_text: `ok ${KEY}`,
          output: [{ content: [{ text: `ok ${KEY}` }] }],
          metadata: { password: "plain-words-but-a-password" },
        },
        createdAt: 1,
      },
      10,
    );
    expect(await store.idempotency.claim("caller", "idem-1", { fingerprint: "f" })).toEqual({
      outcome: "claimed",
    });
    await store.idempotency.complete(
      "caller",
      "idem-1",
      { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify({ text: KEY }) },
      "s",
    );

    expect(store.getSession("s")?.title).toMatch(/^titled \[REDACTED/);
    expect(store.ledger.unfinishedInbound()[0]).toMatchObject({
      platform: "telegram",
      updateId: "1",
      chatId: "100",
    });
    const reply = store.idempotency.get("caller", "idem-1");
    if (reply?.state !== "done") throw new Error("no stored answer");
    expect(JSON.parse(reply.response.body).text).toMatch(/^\[REDACTED/);
    const saved = store.responses.get("resp_1");
    expect(saved?.conversation[0]).toMatchObject({ role: "user" });
    // A value is hidden for the key it sits under, as in a tool result's JSON.
    expect(saved?.response.metadata).toEqual({ password: expect.stringMatching(/^\[REDACTED/) });
    await store.close();
    expect(stateDbBytes(path)).not.toContain(KEY_TAIL);
  });

  it("JSON stays JSON, objects are copied, and thinking changed by redaction loses its signature", () => {
    const redact = (text: string): string => text.replaceAll(KEY, "[REDACTED:openai_key]");
    const pretty = JSON.stringify({ note: `a "quoted" ${KEY}` }, null, 2);
    expect(JSON.parse(redactJsonText(pretty, redact))).toEqual({ note: 'a "quoted" [REDACTED:openai_key]' });
    const message = {
      role: "assistant" as const,
      content: `x ${KEY}`,
      thinking_blocks: [{ type: "thinking" as const, thinking: `the key ${KEY}`, signature: "sig" }],
      tool_calls: [
        { id: "1", type: "function" as const, function: { name: "t", arguments: `{"k":"${KEY}"}` } },
      ],
    };
    const copy = JSON.stringify(message);
    const stored = redactMessage(message, redact);
    expect(JSON.stringify(message)).toBe(copy);
    expect(JSON.stringify(stored)).not.toContain(KEY);
    if (stored.role !== "assistant") throw new Error("role changed");
    expect(stored.thinking_blocks?.[0]).toEqual({
      type: "thinking",
      thinking: "the key [REDACTED:openai_key]",
    });
    const clean = { role: "user" as const, content: "nothing secret here" };
    expect(redactMessage(clean, redact)).toBe(clean);
  });
});
