import { describe, expect, it } from "vitest";
import type { ToolResult } from "../../src/tools/result.js";
import {
  EVERYTHING,
  type Harness,
  server,
  startEverythingHttp,
  startEverythingSse,
  startManager,
  textOf,
} from "./support.js";

/** The reference server of the MCP project, over each transport: the same client behaviour. */
const transports: Array<[string, () => Promise<Harness>]> = [
  [
    "stdio",
    async () => {
      const h = startManager([
        server("everything", { command: process.execPath, args: [EVERYTHING, "stdio"] }),
      ]);
      await h.waitFor((e) => e.kind === "connected");
      return h;
    },
  ],
  [
    "streamable HTTP",
    async () => {
      const { url } = await startEverythingHttp();
      const h = startManager([server("everything", { url })]);
      await h.waitFor((e) => e.kind === "connected");
      return h;
    },
  ],
  [
    "SSE",
    async () => {
      const { url } = await startEverythingSse();
      const h = startManager([server("everything", { url, transport: "sse" })]);
      await h.waitFor((e) => e.kind === "connected");
      return h;
    },
  ],
];

const images = (r: ToolResult) => r.content.filter((b) => b.type === "image");

describe.each(transports)("server-everything over %s", (_label, start) => {
  it("registers its tools as mcp_everything_<tool> in toolset mcp-everything, with the utilities", async () => {
    const { registry } = await start();
    const names = registry.toolsInToolset("mcp-everything");
    expect(names).toEqual(
      expect.arrayContaining([
        "mcp_everything_echo",
        "mcp_everything_get-sum",
        "mcp_everything_get-tiny-image",
        "mcp_everything_get-structured-content",
        "mcp_everything_list_resources",
        "mcp_everything_read_resource",
        "mcp_everything_list_prompts",
        "mcp_everything_get_prompt",
      ]),
    );
    for (const name of names) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    const echo = registry.get("mcp_everything_echo")!;
    expect(echo.schema.parameters).toMatchObject({
      type: "object",
      properties: { message: { type: "string" } },
    });
    expect(echo.schema.parameters).not.toHaveProperty("$schema");
  });

  it("calls a tool and returns its text", async () => {
    const h = await start();
    const r = await h.call("mcp_everything_echo", { message: "hello there" });
    expect(r.isError).toBeUndefined();
    expect(textOf(r)).toBe("Echo: hello there");
    expect(textOf(await h.call("mcp_everything_get-sum", { a: 2, b: 40 }))).toContain("42");
  });

  it("keeps structured content in the details and images as image blocks", async () => {
    const h = await start();
    const weather = await h.call("mcp_everything_get-structured-content", { location: "Chicago" });
    const structured = weather.details?.structuredContent as Record<string, unknown>;
    expect(structured).toMatchObject({ temperature: expect.any(Number), conditions: expect.any(String) });
    expect(JSON.parse(textOf(weather))).toEqual(structured);

    const image = await h.call("mcp_everything_get-tiny-image", {});
    expect(images(image)).toEqual([
      { type: "image", mimeType: "image/png", data: expect.stringMatching(/^iVBOR/) },
    ]);
    expect(textOf(image)).toContain("Here's the image you requested:");
  });

  it("maps embedded resources and resource links", async () => {
    const h = await start();
    const embedded = await h.call("mcp_everything_get-resource-reference", {
      resourceType: "text",
      resourceId: 2,
    });
    expect(textOf(embedded)).toMatch(/\[resource: demo:\/\/resource\/dynamic\/text\/2 \(text\/plain\)\]\n.+/);
    const links = await h.call("mcp_everything_get-resource-links", { count: 2 });
    expect(links.content.filter((b) => b.type === "resource_link")).toHaveLength(2);
  });

  it("reads resources and prompts through the utility tools", async () => {
    const h = await start();
    const listed = JSON.parse(textOf(await h.call("mcp_everything_list_resources")));
    expect(listed.resources.length).toBeGreaterThan(0);
    const uri = listed.resources[0].uri as string;
    expect(textOf(await h.call("mcp_everything_read_resource", { uri }))).toContain(`[resource: ${uri}`);
    const prompts = JSON.parse(textOf(await h.call("mcp_everything_list_prompts")));
    expect(prompts.prompts.map((p: { name: string }) => p.name)).toContain("simple-prompt");
    const prompt = await h.call("mcp_everything_get_prompt", { name: "simple-prompt" });
    expect(textOf(prompt)).toContain("user: This is a simple prompt without arguments.");
  });

  it("has the tools the server registers once the client has initialized", async () => {
    const h = await start();
    // Registered by the server after initialization and announced with tools/list_changed (over
    // stdio the announcement arrives; over HTTP it precedes the client's event stream).
    await expect.poll(() => h.registry.has("mcp_everything_simulate-research-query")).toBe(true);
  });

  it("returns the server's own errors as error results", async () => {
    const h = await start();
    const r = await h.call("mcp_everything_get-structured-content", { location: "Atlantis" });
    expect(r.isError).toBe(true);
  });
});

describe("server-everything over stdio: list_changed", () => {
  it("lists the tools again when the server announces a change", async () => {
    const h = await transports[0]![1]();
    const conn = h.manager.connection("everything")!;
    await expect.poll(() => conn.toolListings, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
  });
});

describe("server-everything over stdio: the environment", () => {
  it("inherits no credential-shaped variable; the server's own env reaches it", async () => {
    const env = {
      ...process.env,
      FAKE_SERVICE_API_KEY: "sk-inherited",
      GITHUB_TOKEN: "ghp_inherited",
      PLAIN_SETTING: "v",
    };
    const h = startManager(
      [
        server(
          "everything",
          {
            command: process.execPath,
            args: [EVERYTHING, "stdio"],
            // biome-ignore lint/suspicious/noTemplateCurlyInString: config.yaml's ${VAR} reference.
            env: { GITHUB_TOKEN: "${GITHUB_TOKEN}", OWN: "1" },
          },
          env,
        ),
      ],
      { env },
    );
    await h.waitFor((e) => e.kind === "connected");
    const seen = JSON.parse(textOf(await h.call("mcp_everything_get-env")));
    expect(seen.FAKE_SERVICE_API_KEY).toBeUndefined();
    expect(seen.PLAIN_SETTING).toBe("v");
    expect(seen.GITHUB_TOKEN).toBe("ghp_inherited");
    expect(seen.OWN).toBe("1");
  });
});
