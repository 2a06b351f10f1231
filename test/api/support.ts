import OpenAI from "openai";
import { afterEach } from "vitest";
import { type ApiServer, createApiServer } from "../../src/api/server.js";
import { type ApiServerOptions, resolveApiOptions } from "../../src/api/settings.js";
import { type TestRuntime, useRuntime } from "../runtime/support.js";
import type { FakeLlm } from "../support/fake-llm.js";

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
  start(yaml?: string, o?: Partial<ApiServerOptions>): Promise<ApiHarness>;
} {
  const h = useRuntime();
  let server: ApiServer | undefined;
  afterEach(async () => {
    await server?.stop(0);
    server = undefined;
  });
  return {
    get fake() {
      return h.fake;
    },
    start: async (yaml = "", overrides = {}) => {
      const t = h.start(yaml);
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

/** Polls until `check` holds (a run ends in the background after a client leaves). */
export async function eventually(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
