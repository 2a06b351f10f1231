/**
 * The API server's caller is the profile's owner: its runs share the owner's background processes
 * from one request to the next, and never see or stop a chat user's. A server killed outright
 * leaves its background processes behind; the next start ends them (not the nohup ones).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import OpenAI from "openai";
import { describe, expect, it, vi } from "vitest";
import { text } from "../runtime/support.js";
import { apiServerUrl, type CliRun, cleanEnv, sandbox, startHermes } from "../support/cli.js";
import { openaiConfig, toolMessagesOf } from "../support/e2e.js";
import type { FakeLlm } from "../support/fake-llm.js";
import { isAlive } from "../tools/helpers.js";
import { KEY, toolCall, useApiServer, useLeftoverProcesses } from "./support.js";

const api = useApiServer();
const leftovers = useLeftoverProcesses();
const call = toolCall;

/** The JSON tool results the model received in the fake's latest request. */
const latestResults = (fake: FakeLlm): Record<string, unknown>[] =>
  toolMessagesOf(fake.requests.at(-1)!).map((m) => JSON.parse(text(m)) as Record<string, unknown>);

describe("API server and chat users", () => {
  it("API runs share the owner's processes across requests and cannot reach a chat user's", async () => {
    const t = await api.start();
    // A Telegram user's session starts a job.
    api.fake.enqueue(call("terminal", { command: "sleep 1000", background: true }), { text: "started" });
    const chat = t.runtime.newAgent(() => undefined, { platform: "telegram", owner: { userId: "42" } });
    await chat.runConversation("start a job");
    await chat.close();
    const chatJob = latestResults(api.fake)[0]!;
    leftovers.push(Number(chatJob.pid));

    api.fake.enqueue(call("terminal", { command: "sleep 1001", background: true }), {
      text: "api job started",
    });
    await t.client.chat.completions.create({
      model: "hermes-agent",
      messages: [{ role: "user", content: "start a job" }],
    });
    const apiJob = latestResults(api.fake)[0]!;
    leftovers.push(Number(apiJob.pid));

    api.fake.enqueue(
      call("process", { action: "list" }),
      call("process", { action: "kill", session_id: chatJob.session_id }),
      { text: "looked" },
    );
    await t.client.chat.completions.create({
      model: "hermes-agent",
      messages: [{ role: "user", content: "what runs?" }],
    });
    const [list, kill] = latestResults(api.fake);
    expect((list!.processes as Array<Record<string, unknown>>).map((p) => p.session_id)).toEqual([
      apiJob.session_id,
    ]);
    expect(String(kill!.error)).toMatch(/^No background process/);
    expect(isAlive(Number(chatJob.pid))).toBe(true);
  });
});

/** `hermes api serve` on a free port; resolves with its URL once it listens. */
async function serve(home: string, work: string): Promise<{ run: CliRun; url: string }> {
  const run = startHermes(["api", "serve", "--port", "0"], {
    env: cleanEnv({ HERMES_HOME: home, OPENAI_API_KEY: "test-key", API_SERVER_KEY: KEY }),
    cwd: work,
  });
  const url = await apiServerUrl(run);
  return { run, url };
}

interface StoredRecord {
  id: string;
  pid: number;
  command: string;
  status: string;
}

const records = (home: string): StoredRecord[] =>
  (JSON.parse(readFileSync(join(home, "processes.json"), "utf8")) as { processes: StoredRecord[] }).processes;

describe("hermes api serve killed outright", () => {
  it("the next start ends the background processes it left, except nohup ones", async () => {
    const box = sandbox(openaiConfig(api.fake));
    const first = await serve(box.home, box.work);
    api.fake.enqueue(
      call("terminal", { command: "sleep 1000", background: true }),
      call("terminal", { command: "sleep 1001", background: true, nohup: true }),
      { text: "both started" },
    );
    const client = new OpenAI({ apiKey: KEY, baseURL: `${first.url}/v1`, maxRetries: 0 });
    await client.chat.completions.create({
      model: "hermes-agent",
      messages: [{ role: "user", content: "start two jobs" }],
    });
    const plain = records(box.home).find((r) => r.command === "sleep 1000")!;
    const kept = records(box.home).find((r) => r.command === "sleep 1001")!;
    leftovers.push(plain.pid, kept.pid);

    first.run.child.kill("SIGKILL");
    await first.run.done;
    // Nothing ended them: the server had no chance to.
    expect([isAlive(plain.pid), isAlive(kept.pid)]).toEqual([true, true]);

    const second = await serve(box.home, box.work);
    await vi.waitFor(() => expect(isAlive(plain.pid)).toBe(false), { timeout: 15_000, interval: 100 });
    expect(isAlive(kept.pid)).toBe(true);
    // Recorded once its whole process group is gone (an exited member may linger until it is reaped).
    await vi.waitFor(() => expect(records(box.home).find((r) => r.id === plain.id)?.status).toBe("killed"), {
      timeout: 10_000,
      interval: 100,
    });
    second.run.child.kill("SIGTERM");
    expect((await second.run.done).code).toBe(0);
    // The nohup one outlives a clean stop too.
    expect(isAlive(kept.pid)).toBe(true);
  }, 60_000);
});
