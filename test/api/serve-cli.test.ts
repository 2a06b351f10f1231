import { readFileSync } from "node:fs";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { apiServerUrl, cleanEnv, runHermes, sandbox, startHermes } from "../support/cli.js";
import { openaiConfig, useFakeLlm } from "../support/e2e.js";
import type { FakeLlm } from "../support/fake-llm.js";
import { KEY } from "./support.js";

let fake: FakeLlm;
useFakeLlm((f) => {
  fake = f;
});

describe("hermes api serve (the built binary)", () => {
  it("refuses to start without a key", async () => {
    const box = sandbox(openaiConfig(fake));
    const r = await runHermes(["api", "serve", "--port", "0"], {
      env: cleanEnv({ HERMES_HOME: box.home, OPENAI_API_KEY: "test-key" }),
      cwd: box.work,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/needs a key: set API_SERVER_KEY/);
    expect(r.stdout).toBe("");
  });

  it("serves /health and chat completions with a key, and stops cleanly on SIGTERM", async () => {
    const box = sandbox(openaiConfig(fake));
    const run = startHermes(["api", "serve", "--port", "0"], {
      env: cleanEnv({ HERMES_HOME: box.home, OPENAI_API_KEY: "test-key", API_SERVER_KEY: KEY }),
      cwd: box.work,
    });
    const url = await apiServerUrl(run);
    const health = await fetch(`${url}/health`);
    expect(health.status).toBe(200);
    // The server replaced itself (same pid) with one under the default heap budget.
    const cmdline = readFileSync(`/proc/${run.child.pid}/cmdline`, "utf8").split("\0");
    expect(cmdline).toContain("--max-old-space-size=1024");
    expect(cmdline).toContain("--max-semi-space-size=8");
    expect((await fetch(`${url}/v1/models`)).status).toBe(401);

    fake.enqueue({ text: "served by the binary" });
    const client = new OpenAI({ apiKey: KEY, baseURL: `${url}/v1`, maxRetries: 0 });
    const done = await client.chat.completions.create({
      model: "hermes-agent",
      messages: [{ role: "user", content: "hello" }],
    });
    expect(done.choices[0]?.message.content).toBe("served by the binary");

    run.child.kill("SIGTERM");
    const r = await run.done;
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("SIGTERM: stopping");
  });

  it("checks a structured answer against the caller's schema and repairs it once", async () => {
    const box = sandbox(openaiConfig(fake, "agent:\n  api_max_retries: 0\n"));
    const run = startHermes(["api", "serve", "--port", "0"], {
      env: cleanEnv({ HERMES_HOME: box.home, OPENAI_API_KEY: "test-key", API_SERVER_KEY: KEY }),
      cwd: box.work,
    });
    const url = await apiServerUrl(run);
    const person = {
      type: "object",
      properties: { name: { type: "string" }, age: { type: "integer" } },
      required: ["name", "age"],
      additionalProperties: false,
    };
    fake.enqueue({ text: '{"name": "Ada"}' }, { text: '{"name": "Ada", "age": 36}' });
    const client = new OpenAI({ apiKey: KEY, baseURL: `${url}/v1`, maxRetries: 0 });
    const done = await client.chat.completions.parse({
      model: "hermes-agent",
      messages: [{ role: "user", content: "Name and age of the first programmer?" }],
      response_format: { type: "json_schema", json_schema: { name: "person", schema: person } },
    });
    expect(done.choices[0]?.message.parsed).toEqual({ name: "Ada", age: 36 });
    // The first answer lacked `age`: the binary's validator caught it and asked for one repair.
    expect(fake.requests).toHaveLength(2);
    run.child.kill("SIGTERM");
    expect((await run.done).code).toBe(0);
  });
});
