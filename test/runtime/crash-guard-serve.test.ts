/**
 * `hermes api serve` (the built binary) with a plugin whose hook throws from a timer: the server
 * logs the error against the plugin and keeps answering; after the third throw within a minute the
 * plugin is disabled and its hook no longer fires.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { KEY } from "../api/support.js";
import { writePlugin } from "../plugins/support.js";
import { cleanEnv, type Sandbox, sandbox, startHermes } from "../support/cli.js";
import { openaiConfig, useFakeLlm } from "../support/e2e.js";
import type { FakeLlm } from "../support/fake-llm.js";
import { flakyPlugin, logRecords, watchOutput } from "./crash-guard-support.js";

let fake: FakeLlm;
useFakeLlm((f) => {
  fake = f;
});

function profile(): Sandbox {
  const box = sandbox(openaiConfig(fake, "agent:\n  api_max_retries: 0\nplugins:\n  enabled: [flaky]\n"));
  writePlugin(join(box.home, "plugins"), "flaky", flakyPlugin.manifest, flakyPlugin.files);
  return box;
}

describe("hermes api serve with a plugin that throws from a timer", () => {
  it("keeps serving, names the plugin in the log, and disables it after repeated throws", async () => {
    const box = profile();
    const run = startHermes(["api", "serve", "--port", "0"], {
      env: cleanEnv({ HERMES_HOME: box.home, OPENAI_API_KEY: "test-key", API_SERVER_KEY: KEY }),
      cwd: box.work,
    });
    const output = watchOutput(run);
    const listening = await output.wait(/API server listening on (http:\/\/127\.0\.0\.1:\d+)/, "stdout");
    const url = listening[1]!;
    const client = new OpenAI({ apiKey: KEY, baseURL: `${url}/v1`, maxRetries: 0 });
    const fired = join(box.home, "plugins", "flaky", "fired.txt");
    const ask = async (n: number): Promise<string | null | undefined> => {
      fake.enqueue({ text: `answer ${n}` });
      const done = await client.chat.completions.create({
        model: "hermes-agent",
        messages: [{ role: "user", content: `question ${n}` }],
      });
      return done.choices[0]?.message.content;
    };

    for (let n = 1; n <= 3; n++) {
      expect(await ask(n)).toBe(`answer ${n}`);
      // The hook's timer throws after the answer: the server must still be there afterwards.
      await output.wait(new RegExp(`uncaught exception from plugin 'flaky'[^\\n]*timer failure ${n}`));
      expect((await fetch(`${url}/health`)).status).toBe(200);
    }
    await output.wait(/plugin 'flaky' disabled: it failed 3 times within 60 s/);
    expect(readFileSync(fired, "utf8").trim().split("\n")).toHaveLength(3);

    // Disabled: the next request is answered and the hook does not fire any more.
    expect(await ask(4)).toBe("answer 4");
    expect((await fetch(`${url}/health`)).status).toBe(200);
    expect(readFileSync(fired, "utf8").trim().split("\n")).toHaveLength(3);

    run.child.kill("SIGTERM");
    const r = await run.done;
    expect(r.code).toBe(0);
    const records = logRecords(join(box.home, "logs", "agent.log"));
    const crashes = records.filter((x) => x.msg === "uncaught exception");
    expect(crashes.map((x) => [x.source, x.error])).toEqual([
      ["plugin:flaky", expect.stringContaining("timer failure 1")],
      ["plugin:flaky", expect.stringContaining("timer failure 2")],
      ["plugin:flaky", expect.stringContaining("timer failure 3")],
    ]);
    expect(records.find((x) => x.msg === "plugin disabled")).toMatchObject({
      plugin: "flaky",
      reason: expect.stringContaining("failed 3 times within 60 s"),
    });
    expect(existsSync(fired)).toBe(true);
  }, 90_000);
});
