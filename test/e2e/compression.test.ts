import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { cleanEnv, runHermes, sandbox } from "../support/cli.js";
import { useFakeLlm } from "../support/e2e.js";
import type { FakeLlm, RecordedRequest } from "../support/fake-llm.js";

let fake: FakeLlm;
useFakeLlm(
  (f) => {
    fake = f;
  },
  { tokenizer: "cl100k_base" },
);

interface WireMessage {
  role: string;
  content: unknown;
  tool_call_id?: string;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
}

const messagesOf = (r: RecordedRequest): WireMessage[] => (r.body as { messages: WireMessage[] }).messages;
const isSummaryCall = (r: RecordedRequest): boolean =>
  String(messagesOf(r)[0]?.content ?? "").includes("checkpoint notes");
const text = (c: unknown): string => (typeof c === "string" ? c : JSON.stringify(c ?? ""));

/** Every tool result follows a call with its id, and every call is answered. */
function orphanFree(messages: WireMessage[]): boolean {
  const calls = new Set<string>();
  const answered = new Set<string>();
  for (const m of messages) {
    for (const tc of m.tool_calls ?? []) calls.add(tc.id);
    if (m.role === "tool") {
      if (!calls.has(m.tool_call_id ?? "")) return false;
      answered.add(m.tool_call_id ?? "");
    }
  }
  return [...calls].every((id) => answered.has(id));
}

const WINDOW = 32_000;
const REQUESTS = 6;
const TOOL_TURNS = 49;
const requestText = (k: number) => `Task ${k}: audit the big files and report anything odd (run ${k}).`;

describe("context compression through the CLI", () => {
  it("a 300-turn session on a 32k window stays under the window and keeps the request verbatim", async () => {
    const box = sandbox(
      `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: test-model\n  context_length: ${WINDOW}\ntoolsets: [file, todo]\n`,
    );
    for (let f = 0; f < 10; f++) {
      const line = (i: number) =>
        `const value_${f}_${i} = computeSomething(${i}, "file ${f}"); // line ${i}\n`;
      writeFileSync(join(box.work, `big${f}.ts`), Array.from({ length: 90 }, (_, i) => line(i)).join(""));
    }
    const seen = new Map<string, number>();
    fake.setResponder((req) => {
      if (isSummaryCall(req)) {
        return { text: "## Active Task\n(see request)\n\n## Completed Actions\n1. read big files" };
      }
      const users = messagesOf(req).filter((m) => m.role === "user");
      const current = [...Array(REQUESTS).keys()]
        .map(requestText)
        .findLast((t) => users.some((u) => text(u.content).endsWith(t)));
      const key = current ?? "none";
      const n = seen.get(key) ?? 0;
      seen.set(key, n + 1);
      if (n < TOOL_TURNS)
        return { toolCalls: [{ name: "read_file", arguments: { path: `big${n % 10}.ts` } }] };
      return { text: `Done with ${key}` };
    });
    const env = cleanEnv({ HERMES_HOME: box.home });
    const input = `${[...Array(REQUESTS).keys()].map(requestText).join("\n")}\n/usage\n/exit\n`;
    const r = await runHermes([], { env, cwd: box.work, input });
    expect(r.code).toBe(0);

    const main = fake.requests.filter((q) => !isSummaryCall(q));
    const summaries = fake.requests.filter(isSummaryCall);
    expect(main.length).toBe(REQUESTS * (TOOL_TURNS + 1));
    expect(main.length).toBeGreaterThanOrEqual(300);
    expect(summaries.length).toBeGreaterThan(0);
    for (const q of fake.requests) {
      expect(q.promptTokens).toBeLessThan(WINDOW);
      expect(orphanFree(messagesOf(q))).toBe(true);
    }
    // Main request j serves user request floor(j / 50): that request is present verbatim.
    main.forEach((q, j) => {
      const want = requestText(Math.floor(j / (TOOL_TURNS + 1)));
      const users = messagesOf(q)
        .filter((m) => m.role === "user")
        .map((m) => text(m.content));
      expect(users.some((u) => u === want || u.endsWith(`\n\n${want}`))).toBe(true);
    });
    // Without compression the last requests would be far over the window.
    expect(Math.max(...main.map((q) => q.promptTokens ?? 0))).toBeGreaterThan(WINDOW / 4);

    const usageLine = /Context compressions: (\d+) \(~([\d,]+) tokens saved\)/.exec(r.stdout);
    expect(usageLine, r.stdout.slice(-2000)).not.toBeNull();
    const count = Number(usageLine![1]);
    expect(count).toBeGreaterThan(3);
    expect(Number(usageLine![2]!.replaceAll(",", ""))).toBeGreaterThan(count * 1000);

    // Lineage: each compression ended a session and started a child linked to it.
    const db = new DatabaseSync(join(box.home, "state.db"), { readOnly: true });
    const rows = db.prepare("SELECT id, parent_session_id, end_reason FROM sessions").all() as Array<{
      id: string;
      parent_session_id: string | null;
      end_reason: string | null;
    }>;
    db.close();
    expect(rows.filter((s) => s.end_reason === "compression")).toHaveLength(count);
    const ids = new Set(rows.map((s) => s.id));
    expect(rows.filter((s) => s.parent_session_id && ids.has(s.parent_session_id))).toHaveLength(count);
  }, 120_000);

  it("a context-overflow error compresses the history and the retried call succeeds", async () => {
    const box = sandbox(
      `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: test-model\n  context_length: 200000\ntoolsets: [file]\n`,
    );
    writeFileSync(
      join(box.work, "big.ts"),
      "export const x = computeSomething(1, 'data'); // filler\n".repeat(150),
    );
    let calls = 0;
    fake.setResponder((req) => {
      if (isSummaryCall(req)) return { text: "## Active Task\nread big.ts six times" };
      calls += 1;
      if (calls <= 6)
        return { toolCalls: [{ name: "read_file", arguments: { path: "big.ts", offset: calls } }] };
      if (calls === 7) {
        const error = {
          message: "This model's maximum context length is 8192 tokens",
          code: "context_length_exceeded",
        };
        return { fault: { kind: "http", status: 400, body: { error } } };
      }
      return { text: "All read." };
    });
    const env = cleanEnv({ HERMES_HOME: box.home });
    const r = await runHermes(["-z", "read big.ts six times"], { env, cwd: box.work });
    expect(r.stdout, r.stderr).toContain("All read.");
    expect(r.code).toBe(0);
    const main = fake.requests.filter((q) => !isSummaryCall(q));
    const [rejected, retried] = main.slice(-2);
    expect(retried!.promptTokens!).toBeLessThan(rejected!.promptTokens! * 0.75);
    expect(orphanFree(messagesOf(retried!))).toBe(true);
    expect(messagesOf(retried!).some((m) => m.role === "user" && m.content === "read big.ts six times")).toBe(
      true,
    );
  });

  it("/compress <topic> summarises on demand with the focus and /usage counts it", async () => {
    const box = sandbox(
      `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: test-model\ntoolsets: [file]\ncompression:\n  protect_last_n: 3\n`,
    );
    writeFileSync(
      join(box.work, "big.ts"),
      "export const x = computeSomething(1, 'data'); // filler\n".repeat(150),
    );
    let calls = 0;
    fake.setResponder((req) => {
      if (isSummaryCall(req))
        return { text: "## Active Task\nread it\n\n## Critical Context\nauth flow notes" };
      calls += 1;
      if (calls <= 8)
        return { toolCalls: [{ name: "read_file", arguments: { path: "big.ts", offset: calls } }] };
      return { text: `answer ${calls}` };
    });
    const env = cleanEnv({ HERMES_HOME: box.home });
    const input = "read big.ts eight times\n/compress the auth flow\nand now?\n/usage\n/exit\n";
    const r = await runHermes([], { env, cwd: box.work, input });
    expect(r.code, r.stderr).toBe(0);
    const summaries = fake.requests.filter(isSummaryCall);
    expect(summaries).toHaveLength(1);
    expect(JSON.stringify(summaries[0]!.body)).toContain("the auth flow");
    const last = messagesOf(fake.requests.at(-1)!);
    expect(JSON.stringify(last)).toContain("auth flow notes");
    expect(last.at(-1)!.content).toBe("and now?");
    expect(r.stdout).toMatch(/Context compressions: 1 \(~[\d,]+ tokens saved\)/);
  });

  it("an 8k window crowded by the fixed prompt names the toolsets to drop, and still answers", async () => {
    const base = `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: test-model\n`;
    const crowded = sandbox(`${base}  context_length: 8000\n`);
    fake.enqueue({ text: "hello there" });
    const r = await runHermes(["chat", "-q", "hi"], {
      env: cleanEnv({ HERMES_HOME: crowded.home }),
      cwd: crowded.work,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("hello there");
    expect(r.stderr).toMatch(/8,000-token context window/);
    expect(r.stderr).toMatch(/Consider dropping toolsets: \w+ \(~[\d,]+ tokens\)/);
    // With only the file tools the same window has room: no warning.
    const lean = sandbox(`${base}  context_length: 8000\ntoolsets: [file]\n`);
    fake.enqueue({ text: "hello again" });
    const quiet = await runHermes(["chat", "-q", "hi"], {
      env: cleanEnv({ HERMES_HOME: lean.home }),
      cwd: lean.work,
    });
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).not.toContain("Consider dropping toolsets");
  });

  it("compresses by message count past compression.hygiene_hard_message_limit, tokens aside", async () => {
    const box = sandbox(
      `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: test-model\ntoolsets: [file]\ncompression:\n  hygiene_hard_message_limit: 8\n  protect_last_n: 3\n`,
    );
    writeFileSync(join(box.work, "tiny.txt"), "ok\n");
    let calls = 0;
    fake.setResponder((req) => {
      if (isSummaryCall(req))
        return { text: "## Active Task\nread tiny.txt\n\n## Completed Actions\nread it" };
      calls += 1;
      if (calls <= 6)
        return { toolCalls: [{ name: "read_file", arguments: { path: "tiny.txt", offset: calls } }] };
      return { text: "done reading" };
    });
    const r = await runHermes(["chat", "-q", "read tiny.txt six times"], {
      env: cleanEnv({ HERMES_HOME: box.home }),
      cwd: box.work,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("done reading");
    expect(fake.requests.filter(isSummaryCall).length).toBeGreaterThan(0);
    expect(r.stderr).toMatch(/More than 8 messages/);
    const last = messagesOf(fake.requests.filter((q) => !isSummaryCall(q)).at(-1)!);
    expect(last.length).toBeLessThan(15);
    expect(last.some((m) => m.role === "user" && m.content === "read tiny.txt six times")).toBe(true);
  });
});
