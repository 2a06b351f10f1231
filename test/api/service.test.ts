import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { createApiService } from "../../src/api/service.js";
import { ApiSetupError, resolveApiOptions } from "../../src/api/settings.js";
import { useRuntime } from "../runtime/support.js";
import { eventually, KEY } from "./support.js";

const h = useRuntime();
const log = () => {};

describe("settings", () => {
  it("refuses a missing or short key with a message saying what to set", () => {
    expect(() => resolveApiOptions({ settings: {}, env: {} })).toThrow(/API_SERVER_KEY/);
    expect(() => resolveApiOptions({ settings: { key: "short" }, env: {} })).toThrow(ApiSetupError);
    expect(() => resolveApiOptions({ settings: {}, env: { API_SERVER_KEY: "x".repeat(15) } })).toThrow(
      /at least 16/,
    );
  });

  it("merges config, the extra block, the environment and flags", () => {
    const o = resolveApiOptions({
      settings: { key: KEY, port: 9000, extra: { model_name: "from-extra", cors_origins: ["https://a"] } },
      env: { API_SERVER_HOST: "0.0.0.0" },
      platformToolsets: { api_server: ["web", "file"] },
      overrides: { port: 9100 },
    });
    expect(o).toMatchObject({
      host: "0.0.0.0",
      port: 9100,
      key: KEY,
      modelName: "from-extra",
      corsOrigins: ["https://a"],
      toolsets: ["web", "file"],
      maxConcurrentRuns: 10,
      maxStoredResponses: 100,
    });
    expect(resolveApiOptions({ settings: {}, env: { API_SERVER_KEY: KEY } })).toMatchObject({
      host: "127.0.0.1",
      port: 8642,
      modelName: "hermes-agent",
      toolsets: ["hermes-api-server"],
    });
    expect(() =>
      resolveApiOptions({ settings: {}, env: { API_SERVER_KEY: KEY, API_SERVER_PORT: "http" } }),
    ).toThrow(/API_SERVER_PORT must be a port number/);
  });
});

describe("createApiService (the gateway's service)", () => {
  it("refuses to build without a key", async () => {
    const t = h.start();
    await expect(createApiService({ runtime: t.runtime, settings: {}, env: {}, log })).rejects.toThrow(
      /needs a key/,
    );
  });

  it("serves, reports its status, and on stop lets a run finish within the drain time", async () => {
    const t = h.start();
    const service = await createApiService({
      runtime: t.runtime,
      settings: { port: 0, key: KEY },
      env: {},
      log,
    });
    expect(service.name).toBe("api_server");
    await service.start();
    const url = String(service.status().url);
    const client = new OpenAI({ apiKey: KEY, baseURL: `${url}/v1`, maxRetries: 0 });
    h.fake.enqueue({ text: "finished while draining", delayMs: 300 });
    const answer = client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "slow" }],
    });
    await eventually(() => service.status().runsInFlight === 1 && h.fake.requests.length === 1, "the run");
    await service.stop(10_000);
    expect((await answer).choices[0]?.message.content).toBe("finished while draining");
    expect(service.status().runsInFlight).toBe(0);
    await expect(fetch(`${url}/health`)).rejects.toThrow();
  });

  it("interrupts runs still going when the drain time is up (503 to the client)", async () => {
    const t = h.start();
    const service = await createApiService({
      runtime: t.runtime,
      settings: { port: 0, key: KEY },
      env: {},
      log,
    });
    await service.start();
    const url = String(service.status().url);
    h.fake.enqueue({ fault: { kind: "hang" } });
    const pending = fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ messages: [{ role: "user", content: "hang" }] }),
    });
    await eventually(() => h.fake.requests.length === 1, "the run to reach the model");
    await service.stop(50);
    const res = await pending;
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("server_stopping");
  });
});
