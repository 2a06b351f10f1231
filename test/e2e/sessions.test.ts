import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { cleanEnv, runHermes, sandbox, startHermes } from "../support/cli.js";
import { useFakeLlm } from "../support/e2e.js";
import type { FakeLlm, RecordedRequest } from "../support/fake-llm.js";
import { tempDir } from "../support/temp.js";

let fake: FakeLlm;
useFakeLlm((f) => {
  fake = f;
});

const config = (): string =>
  `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: test-model\n`;
const envFor = (home: string): NodeJS.ProcessEnv => cleanEnv({ HERMES_HOME: home });

interface WireMessage {
  role: string;
  content: unknown;
  tool_call_id?: string;
  tool_calls?: Array<{ id: string; function: { name: string } }>;
}
const messagesOf = (req: RecordedRequest): WireMessage[] =>
  (req.body as { messages: WireMessage[] }).messages;

async function listSessions(
  home: string,
  work: string,
): Promise<Array<{ id: string; title: string | null }>> {
  const r = await runHermes(["sessions", "list", "--json"], { env: envFor(home), cwd: work });
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
}

describe("sessions in state.db", () => {
  it("SIGKILL mid-turn loses nothing shown; hermes -c resumes it and the db stays intact", async () => {
    const box = sandbox(config());
    fake.enqueue(
      { toolCalls: [{ name: "terminal", arguments: { command: "echo first-step-done" } }] },
      { toolCalls: [{ name: "terminal", arguments: { command: "sleep 14.37" } }] },
    );
    // A killed process cannot remove its temp files: keep them where the test removes them.
    const env = { ...envFor(box.home), TMPDIR: tempDir("hermes-killed-") };
    const run = startHermes(["chat", "-q", "do the long task"], { env, cwd: box.work });
    await run.waitForStderr("terminal: sleep");
    run.child.kill("SIGKILL");
    expect((await run.done).signal).toBe("SIGKILL");
    const firstSystem = messagesOf(fake.requests[0]!)[0];

    fake.enqueue({ text: "picked up where we left off" });
    const r = await runHermes(["-c", "-z", "carry on"], { env: envFor(box.home), cwd: box.work });
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("picked up where we left off\n");
    const sent = messagesOf(fake.requests.at(-1)!);
    expect(sent[0]).toEqual(firstSystem);
    expect(sent.map((m) => m.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "user",
    ]);
    expect(sent[1]!.content).toBe("do the long task");
    expect(String(sent[3]!.content)).toContain("first-step-done");
    expect(String(sent[5]!.content)).toContain("session ended before this tool returned");
    expect(sent[6]!.content).toBe("carry on");

    const sessions = await listSessions(box.home, box.work);
    expect(sessions).toHaveLength(1);
    const db = new DatabaseSync(join(box.home, "state.db"), { readOnly: true });
    expect(db.prepare("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    const roles = db.prepare("SELECT role FROM messages ORDER BY seq").all() as Array<{ role: string }>;
    expect(roles.map((x) => x.role)).toEqual(["user", "assistant", "tool", "assistant", "user", "assistant"]);
    db.close();
  }, 30_000);

  it("lists, renames, exports, resumes by title, searches and deletes sessions", async () => {
    const box = sandbox(config());
    const env = envFor(box.home);
    fake.enqueue({ text: "noted: the codeword is pineapple-42" });
    expect((await runHermes(["-z", "remember codeword pineapple-42"], { env, cwd: box.work })).code).toBe(0);
    const [first] = await listSessions(box.home, box.work);
    expect(first!.id).toMatch(/^[0-9a-f-]{36}$/);

    const table = await runHermes(["sessions", "list"], { env, cwd: box.work });
    expect(table.stdout).toContain(first!.id);
    expect(table.stdout).toContain("cli");

    expect(
      (await runHermes(["sessions", "rename", first!.id.slice(0, 8), "fruit talk"], { env, cwd: box.work }))
        .code,
    ).toBe(0);
    const md = await runHermes(["sessions", "export", "fruit talk", "-f", "md"], { env, cwd: box.work });
    expect(md.stdout).toContain("# fruit talk");
    expect(md.stdout).toContain("remember codeword pineapple-42");
    const jsonl = await runHermes(["sessions", "export", first!.id], { env, cwd: box.work });
    const lines = jsonl.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ type: "session", id: first!.id, title: "fruit talk" });
    expect(lines.slice(1).map((l) => l.role)).toEqual(["user", "assistant"]);

    // A new session finds the old one through session_search (the current one is excluded).
    fake.enqueue(
      { toolCalls: [{ name: "session_search", arguments: { query: "pineapple" } }] },
      { text: "found it" },
    );
    expect((await runHermes(["-z", "what was the codeword?"], { env, cwd: box.work })).code).toBe(0);
    const toolMsg = messagesOf(fake.requests.at(-1)!).at(-1)!;
    const result = JSON.parse(String(toolMsg.content));
    expect(result.count).toBe(2);
    expect(result.results[0]).toMatchObject({ session_id: first!.id, title: "fruit talk" });
    expect(result.results[0].snippet).toContain(">>>pineapple<<<");

    // Scroll around a hit.
    fake.enqueue(
      {
        toolCalls: [
          {
            name: "session_search",
            arguments: { session_id: first!.id, around_message_id: result.results[0].message_id, window: 1 },
          },
        ],
      },
      { text: "ok" },
    );
    expect((await runHermes(["-r", "fruit talk", "-z", "show context"], { env, cwd: box.work })).code).toBe(
      0,
    );
    const around = JSON.parse(String(messagesOf(fake.requests.at(-1)!).at(-1)!.content));
    expect(around.messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant"]);
    // -r continued the titled session: its history came first.
    expect(messagesOf(fake.requests.at(-2)!)[1]!.content).toBe("remember codeword pineapple-42");

    const stats = await runHermes(["sessions", "stats"], { env, cwd: box.work });
    expect(stats.stdout).toMatch(/Sessions:\s+2/);
    expect((await runHermes(["sessions", "delete", first!.id], { env, cwd: box.work })).code).toBe(0);
    expect(await listSessions(box.home, box.work)).toHaveLength(1);
    const pruned = await runHermes(["sessions", "prune", "--older-than", "0"], { env, cwd: box.work });
    expect(pruned.stdout).toContain("Deleted 1 session");
    const missing = await runHermes(["-r", "nope", "-z", "x"], { env, cwd: box.work });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("no session with id or title 'nope'");
  }, 60_000);

  it("a corrupted state.db is left in place; the run continues without persistence", async () => {
    const box = sandbox(config());
    const junk = "garbage, not sqlite ".repeat(100);
    writeFileSync(join(box.home, "state.db"), junk);
    fake.enqueue({ text: "still works" });
    const r = await runHermes(["-z", "hi"], { env: envFor(box.home), cwd: box.work });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("still works\n");
    expect(r.stderr).toContain("damaged");
    expect(r.stderr).toContain("not being saved");
    expect(readFileSync(join(box.home, "state.db"), "utf8")).toBe(junk);
    const list = await runHermes(["sessions", "list"], { env: envFor(box.home), cwd: box.work });
    expect(list.code).toBe(1);
    expect(list.stderr).toContain("damaged");
  }, 30_000);
});
