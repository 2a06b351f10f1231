import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ToolContext } from "../../src/tools/context.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { tempDir } from "../support/temp.js";
import { alive, fixture, server, startFixtureHttp, startManager, textOf, until } from "./support.js";

const readPid = (file: string): number => Number(readFileSync(file, "utf8"));

describe("a server that dies in the middle of a call", () => {
  it("answers the call with a clear error, restarts the server and works again", async () => {
    const dir = tempDir("hermes-mcp-dying-");
    const pidFile = join(dir, "pid");
    const h = startManager([fixture("dying", "dying", { env: { MCP_PID_FILE: pidFile } })]);
    await h.waitFor((e) => e.kind === "connected");
    const firstPid = readPid(pidFile);

    const r = await h.call("mcp_dying_crash");
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain("MCP server 'dying' stopped during tool 'crash' (exit code 3)");
    expect(textOf(r)).toContain("it is being restarted");
    await h.waitFor((e) => e.kind === "disconnected" && e.server === "dying");

    await h.waitFor((e) => e.kind === "connected" && e.reconnected);
    expect(textOf(await h.call("mcp_dying_echo", { text: "back" }))).toBe("back");
    const secondPid = Number(textOf(await h.call("mcp_dying_pid")));
    expect(secondPid).not.toBe(firstPid);
    expect(alive(firstPid)).toBe(false);
  });

  it("answers calls made while it restarts with the reason, at once", async () => {
    const h = startManager([fixture("dying", "dying")], {
      reconnect: { baseMs: 60_000, maxMs: 60_000, firstTries: 1, tries: 2 },
    });
    await h.waitFor((e) => e.kind === "connected");
    await h.call("mcp_dying_crash");
    const r = await h.call("mcp_dying_echo", { text: "x" });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(
      /MCP server 'dying' is not connected \(the server process ended \(exit code 3\)\); reconnecting \(attempt 1 of 2\)/,
    );
  });
});

describe("a server that never answers a call", () => {
  it("returns an error result once the server's timeout has passed, and keeps the server", async () => {
    const h = startManager([fixture("silent", "silent", { timeout: 1 })]);
    await h.waitFor((e) => e.kind === "connected");
    const r = await h.call("mcp_silent_wait");
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain(
      "MCP server 'silent' did not answer tool 'wait' within 1 s; the call was cancelled.",
    );
    expect(textOf(await h.call("mcp_silent_echo", { text: "still here" }))).toBe("still here");
  });

  it("is cut short by an interrupt", async () => {
    const h = startManager([fixture("silent", "silent")]);
    await h.waitFor((e) => e.kind === "connected");
    const abort = new AbortController();
    const pending = h.registry.dispatchResult("mcp_silent_wait", {}, { signal: abort.signal } as ToolContext);
    abort.abort();
    const r = await pending;
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain("was interrupted");
  });
});

describe("a server that hangs at start", () => {
  it("does not hold discovery past its deadline; its tools join later with a status event", async () => {
    const dir = tempDir("hermes-mcp-hang-");
    const started = join(dir, "started");
    const release = join(dir, "release");
    const h = startManager(
      [
        fixture("quick", "basic"),
        fixture("slow", "hang-start", { env: { MCP_STARTED: started, MCP_RELEASE: release } }),
      ],
      { discoveryTimeoutMs: 500 },
    );
    await until(() => existsSync(started), 10_000, "the slow server's start");
    await h.waitFor((e) => e.kind === "connected" && e.server === "quick");
    await h.manager.ready();
    // Discovery is over while the slow server still has not answered.
    expect(existsSync(release)).toBe(false);
    expect(h.manager.connection("slow")!.state.kind).toBe("connecting");
    expect(h.registry.has("mcp_quick_echo")).toBe(true);
    expect(h.registry.toolsInToolset("mcp-slow")).toEqual([]);

    writeFileSync(release, "");
    const joined = await h.waitFor((e) => e.kind === "connected" && e.server === "slow");
    expect(joined).toMatchObject({ late: true, tools: 3 });
    expect(h.registry.has("mcp_slow_echo")).toBe(true);
  });
});

describe("a server with 300 tools", () => {
  it("registers every one of them", async () => {
    const h = startManager([fixture("many", "many")]);
    await h.waitFor((e) => e.kind === "connected");
    expect(h.registry.toolsInToolset("mcp-many")).toHaveLength(303);
    expect(textOf(await h.call("mcp_many_tool_299", { value: "v" }))).toBe("tool_299:v");
  });
});

describe.each([
  ["stdio", async () => fixture("changing", "changing")],
  ["streamable HTTP", async () => server("changing", { url: (await startFixtureHttp("changing")).url })],
])("a server whose tools change (%s)", (_label, config) => {
  it("follows notifications/tools/list_changed into the registry", async () => {
    const h = startManager([await config()]);
    await h.waitFor((e) => e.kind === "connected");
    const generation = h.registry.generation;
    expect(textOf(await h.call("mcp_changing_add_tool", { name: "fresh" }))).toBe("added fresh");
    const changed = await h.waitFor((e) => e.kind === "tools_changed");
    expect(changed).toMatchObject({ server: "changing", added: ["mcp_changing_fresh"], removed: [] });
    expect(h.registry.generation).toBeGreaterThan(generation);
    expect(textOf(await h.call("mcp_changing_fresh"))).toBe("fresh ran");
  });
});

describe("registration rules", () => {
  it("skips a tool whose name a built-in already has, with a warning, and keeps the built-in", async () => {
    const registry = new ToolRegistry<ToolContext>();
    registry.register({
      name: "mcp_basic_echo",
      toolset: "file",
      schema: { description: "built-in", parameters: { type: "object", properties: {} } },
      handler: () => "the built-in",
    });
    const h = startManager([fixture("basic", "basic")], { registry });
    await h.waitFor((e) => e.kind === "connected");
    expect(h.events).toContainEqual({
      kind: "skipped_tool",
      server: "basic",
      message: "'mcp_basic_echo' is already a tool of 'file'",
    });
    expect(textOf(await h.call("mcp_basic_echo", { text: "x" }))).toBe("the built-in");
    expect(h.registry.toolsInToolset("mcp-basic")).toEqual(["mcp_basic_env", "mcp_basic_pid"]);
  });

  it("applies tools.include and tools.exclude, and sanitizes names", async () => {
    const h = startManager([
      fixture("my server.v2", "basic", { tools: { include: ["echo", "pid"], exclude: ["pid"] } }),
    ]);
    await h.waitFor((e) => e.kind === "connected");
    expect(h.registry.toolsInToolset("mcp-my_server_v2")).toEqual(["mcp_my_server_v2_echo"]);
  });

  it("ignores lines on stdout that are not JSON-RPC", async () => {
    const h = startManager([fixture("noisy", "basic", { env: { MCP_BANNER: "1" } })]);
    await h.waitFor((e) => e.kind === "connected");
    expect(textOf(await h.call("mcp_noisy_echo", { text: "fine" }))).toBe("fine");
  });

  it("reports a server that cannot start and registers nothing for it", async () => {
    const h = startManager([server("broken", { command: "/nonexistent/mcp-server" })]);
    await h.manager.ready();
    const failed = await h.waitFor((e) => e.kind === "failed");
    expect(failed).toMatchObject({ server: "broken", reason: expect.stringContaining("ENOENT") });
    expect(h.registry.toolsetNames()).toEqual([]);
  });

  it("stops the server's process when it closes", async () => {
    const dir = tempDir("hermes-mcp-close-");
    const pidFile = join(dir, "pid");
    // A server that ignores the end of its stdin: only the kill ends it.
    const h = startManager([
      fixture("basic", "basic", { env: { MCP_PID_FILE: pidFile, MCP_IGNORE_EOF: "1" } }),
    ]);
    await h.waitFor((e) => e.kind === "connected");
    const pid = readPid(pidFile);
    expect(alive(pid)).toBe(true);
    await h.manager.close();
    await until(() => !alive(pid), 5000, "the server's exit");
  });
});
