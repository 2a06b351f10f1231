import { describe, expect, it } from "vitest";
import { parseMcpServers } from "../../src/mcp/config.js";
import { serverEnv } from "../../src/mcp/host.js";
import { mcpToolName, mcpToolset } from "../../src/mcp/names.js";
import { mapCallResult } from "../../src/mcp/results.js";
import { isCredentialName } from "../../src/tools/environments/shell-state.js";

describe("mcp_servers in config.yaml", () => {
  it("reads stdio and HTTP servers with their defaults and variable references", () => {
    const { servers, problems } = parseMcpServers(
      {
        files: { command: "npx", args: ["-y", "srv", `\${HOME_DIR}`], env: { TOKEN: `\${SECRET}` } },
        remote: {
          url: "https://h/mcp",
          headers: { Authorization: `Bearer \${SECRET}` },
          timeout: 5,
          enabled: false,
        },
        legacy: { url: "https://h/sse", transport: "sse", tools: { include: ["a"], prompts: false } },
      },
      { HOME_DIR: "/home/me", SECRET: "s3" },
    );
    expect(problems).toEqual([]);
    expect(servers[0]).toMatchObject({
      name: "files",
      transport: "stdio",
      args: ["-y", "srv", "/home/me"],
      env: { TOKEN: "s3" },
      timeoutMs: 300_000,
      connectTimeoutMs: 60_000,
      enabled: true,
      include: undefined,
      exclude: [],
      resources: true,
      prompts: true,
    });
    expect(servers[1]).toMatchObject({
      transport: "http",
      headers: { Authorization: "Bearer s3" },
      timeoutMs: 5000,
      enabled: false,
    });
    expect(servers[2]).toMatchObject({ transport: "sse", include: ["a"], prompts: false });
  });

  it("skips a bad entry with a reason and keeps the others", () => {
    const { servers, problems } = parseMcpServers({
      good: { command: "srv", auth: "oauth", colour: "blue" },
      nothing: {},
      web: { url: "ftp://x" },
      slow: { command: "srv", timeout: -1 },
      odd: { command: "srv", transport: "carrier-pigeon" },
    });
    expect(servers.map((s) => s.name)).toEqual(["good"]);
    expect(problems).toEqual([
      "mcp_servers.good: unknown key 'colour' ignored",
      "mcp_servers.nothing: needs 'command' (or 'url' for an HTTP server); server skipped",
      "mcp_servers.web: needs 'url' starting with http:// or https://; server skipped",
      "mcp_servers.slow: 'timeout' must be a number of seconds > 0; server skipped",
      'mcp_servers.odd: transport must be stdio, http or sse (got "carrier-pigeon"); server skipped',
    ]);
  });
});

describe("tool names", () => {
  it("are mcp_<server>_<tool> in mcp-<server>, sanitized to [A-Za-z0-9_-] and at most 64 characters", () => {
    expect(mcpToolName("github", "create_issue")).toBe("mcp_github_create_issue");
    expect(mcpToolName("my server", "get.thing/v2")).toBe("mcp_my_server_get_thing_v2");
    expect(mcpToolset("my server")).toBe("mcp-my_server");
    const long = mcpToolName("a-very-long-server-name", "an_extremely_long_tool_name_that_goes_on_and_on");
    const other = mcpToolName("a-very-long-server-name", "an_extremely_long_tool_name_that_goes_on_and_off");
    expect(long).toHaveLength(64);
    expect(long).not.toBe(other);
    expect(long).toMatch(/^mcp_a-very-long-server-name_an_extremely_long_tool_name_[0-9a-f]{8}$/);
  });
});

describe("a stdio server's environment", () => {
  it("leaves out credential-shaped variables unless the server's own env gives them", () => {
    const env = serverEnv(
      { PATH: "/bin", OPENAI_API_KEY: "sk", GH_TOKEN: "t", DB_PASSWORD: "p", LANG: "C", FN: "() { :; }" },
      { GH_TOKEN: "given" },
      isCredentialName,
    );
    expect(env).toEqual({ PATH: "/bin", LANG: "C", GH_TOKEN: "given" });
  });
});

describe("MCP results", () => {
  it("map every content type faithfully", () => {
    const r = mapCallResult({
      content: [
        { type: "text", text: "hello" },
        { type: "image", data: "iVBORw0K", mimeType: "image/png" },
        { type: "audio", data: "AAAA", mimeType: "audio/wav" },
        { type: "resource_link", uri: "file:///a.txt", name: "a.txt", mimeType: "text/plain" },
        { type: "resource", resource: { uri: "mem://note", mimeType: "text/markdown", text: "# Note" } },
        { type: "resource", resource: { uri: "mem://pic", mimeType: "image/jpeg", blob: "/9j/" } },
        { type: "resource", resource: { uri: "mem://zip", mimeType: "application/zip", blob: "UEsDBA==" } },
      ],
    });
    expect(r).toEqual({
      content: [
        { type: "text", text: "hello" },
        { type: "image", mimeType: "image/png", data: "iVBORw0K" },
        { type: "text", text: "[audio: audio/wav, 3 bytes; audio is not passed to the model]" },
        { type: "resource_link", uri: "file:///a.txt", name: "a.txt", mimeType: "text/plain" },
        { type: "text", text: "[resource: mem://note (text/markdown)]\n# Note" },
        { type: "text", text: "[resource: mem://pic (image/jpeg)]" },
        { type: "image", mimeType: "image/jpeg", data: "/9j/" },
        { type: "text", text: "[resource: mem://zip (application/zip), 4 bytes of binary data]" },
      ],
    });
  });

  it("keep structured content, using it as the text when the server sent none", () => {
    expect(mapCallResult({ content: [], structuredContent: { t: 21 } })).toEqual({
      content: [{ type: "text", text: '{"t":21}' }],
      details: { structuredContent: { t: 21 } },
    });
    expect(
      mapCallResult({ content: [{ type: "text", text: "21 degrees" }], structuredContent: { t: 21 } }),
    ).toEqual({
      content: [{ type: "text", text: "21 degrees" }],
      details: { structuredContent: { t: 21 } },
    });
  });

  it("carry the server's error flag, and never come back empty", () => {
    expect(mapCallResult({ content: [{ type: "text", text: "no such file" }], isError: true })).toEqual({
      content: [{ type: "text", text: "no such file" }],
      isError: true,
    });
    expect(mapCallResult({ content: [], isError: true }).content).toEqual([
      { type: "text", text: "The MCP tool reported an error without a message." },
    ]);
    expect(mapCallResult({ content: [] }).content).toEqual([{ type: "text", text: "(empty result)" }]);
  });
});
