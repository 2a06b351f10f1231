import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import OpenAI from "openai";
import { afterEach } from "vitest";
import { type ApiServer, createApiServer } from "../../src/api/server.js";
import { type ApiServerOptions, resolveApiOptions } from "../../src/api/settings.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import { type TestRuntime, useRuntime } from "../runtime/support.js";
import { sandbox } from "../support/cli.js";
import type { FakeLlm, ScriptedTurn } from "../support/fake-llm.js";

export const KEY = "test-api-key-0123456789abcdef";

export interface ApiHarness extends TestRuntime {
  server: ApiServer;
  /** http://127.0.0.1:PORT */
  url: string;
  /** The official client, pointed at the server (no retries: a 429 must reach the test). */
  client: OpenAI;
  /** fetch against the server with the key (unless `key: null`). */
  call(path: string, init?: RequestInit & { key?: string | null }): Promise<Response>;
  /** POST of a JSON body with the key. */
  post(path: string, body: unknown): Promise<Response>;
}

/** A runtime on the fake LLM and an API server on 127.0.0.1:0 in front of it, per test. */
export function useApiServer(): {
  readonly fake: FakeLlm;
  /**
   * Starts the server on a runtime whose model is the fake server's chat completions endpoint plus
   * `yaml`; `config` (given the fake server) replaces the whole config.yaml instead, for another
   * protocol (`model.api_mode`).
   */
  start(
    yaml?: string,
    o?: Partial<ApiServerOptions>,
    config?: (fake: FakeLlm) => string,
    homeFiles?: Record<string, string>,
  ): Promise<ApiHarness>;
} {
  const h = useRuntime();
  let server: ApiServer | undefined;
  let own: TestRuntime | undefined;
  afterEach(async () => {
    await server?.stop(0);
    server = undefined;
    await own?.runtime.dispose();
    own = undefined;
  });
  return {
    get fake() {
      return h.fake;
    },
    start: async (yaml = "", overrides = {}, config, homeFiles) => {
      if (config) own = ownRuntime(config(h.fake), homeFiles);
      const t = own ?? h.start(yaml);
      const options: ApiServerOptions = {
        ...resolveApiOptions({
          settings: t.runtime.config.platforms.api_server as unknown as Record<string, unknown>,
          env: { API_SERVER_KEY: KEY },
          platformToolsets: t.runtime.config.platform_toolsets,
        }),
        port: 0,
        ...overrides,
      };
      server = createApiServer({ runtime: t.runtime, options });
      const { url } = await server.start();
      const call = (path: string, init: RequestInit & { key?: string | null } = {}): Promise<Response> => {
        const { key = KEY, ...rest } = init;
        const headers = new Headers(rest.headers);
        if (key !== null) headers.set("authorization", `Bearer ${key}`);
        return fetch(`${url}${path}`, { ...rest, headers });
      };
      return {
        ...t,
        server,
        url,
        client: new OpenAI({ apiKey: KEY, baseURL: `${url}/v1`, maxRetries: 0 }),
        call,
        post: (path, body) =>
          call(path, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: typeof body === "string" ? body : JSON.stringify(body),
          }),
      };
    },
  };
}

/** A runtime on a config.yaml of the test's own (disposed after the test by useApiServer). */
function ownRuntime(configYaml: string, homeFiles: Record<string, string> = {}): TestRuntime {
  const box = sandbox(configYaml);
  for (const [name, text] of Object.entries(homeFiles)) writeFileSync(join(box.home, name), text);
  mkdirSync(join(box.work, "..", "user-home"), { recursive: true });
  const runtime = createRuntime({
    home: box.home,
    cwd: box.work,
    platform: "test",
    env: { OPENAI_API_KEY: "test-key", ANTHROPIC_API_KEY: "test-key" },
  });
  return { runtime, box, events: new Map(), listener: () => () => {} };
}

/** Polls until `check` holds (a run ends in the background after a client leaves). */
export async function eventually(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A scripted turn calling one tool. */
export const toolCall = (name: string, args: Record<string, unknown>): ScriptedTurn => ({
  toolCalls: [{ name, arguments: args }],
});

/**
 * Process groups the test's background jobs started: killed after each test, whatever it left
 * (push a job's pid as soon as it is known).
 */
export function useLeftoverProcesses(): number[] {
  const leftovers: number[] = [];
  afterEach(() => {
    for (const pid of leftovers.splice(0)) {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  });
  return leftovers;
}
