import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/events.js";
import { useRuntime } from "../runtime/support.js";
import type { RecordedRequest } from "../support/fake-llm.js";
import { tempDir } from "../support/temp.js";
import { alive, FIXTURE, until } from "./support.js";

const h = useRuntime();

const toolsOf = (req: RecordedRequest | undefined): string[] =>
  ((req?.body as { tools?: Array<{ function: { name: string } }> } | undefined)?.tools ?? []).map(
    (x) => x.function.name,
  );

const servers = (...entries: string[]) => `mcp_servers:\n${entries.join("")}`;
const entry = (name: string, mode: string, env: Record<string, string> = {}) =>
  `  ${name}:\n    command: ${process.execPath}\n    args: [${FIXTURE}, ${mode}]\n` +
  (Object.keys(env).length
    ? `    env:\n${Object.entries(env)
        .map(([k, v]) => `      ${k}: "${v}"\n`)
        .join("")}`
    : "");

describe("MCP servers in the runtime", () => {
  it("join the hermes-* presets; disabled_toolsets and a preset-less -t list leave them out", async () => {
    const yaml = `mcp_discovery_timeout: 30\n${servers(entry("quick", "basic"), entry("other", "basic"))}`;
    const all = h.start(yaml).runtime;
    await all.mcp.ready();
    expect([...all.toolNames].filter((n) => n.startsWith("mcp_")).sort()).toEqual([
      "mcp_other_echo",
      "mcp_other_env",
      "mcp_other_pid",
      "mcp_quick_echo",
      "mcp_quick_env",
      "mcp_quick_pid",
    ]);
    expect(all.mcp.statuses().map((s) => [s.name, s.state, s.tools.length])).toEqual([
      ["quick", "ready", 3],
      ["other", "ready", 3],
    ]);
    await all.dispose();

    // Continues the harness's `agent:` mapping.
    const some = h.start(`  disabled_toolsets: [mcp-other]\n${yaml}`).runtime;
    await some.mcp.ready();
    expect([...some.toolNames].filter((n) => n.startsWith("mcp_"))).toEqual(
      expect.arrayContaining(["mcp_quick_echo"]),
    );
    expect([...some.toolNames].some((n) => n.startsWith("mcp_other_"))).toBe(false);
    await some.dispose();

    const named = h.start(yaml, { toolsets: "file,mcp-other" }).runtime;
    await named.mcp.ready();
    expect([...named.toolNames].filter((n) => n.startsWith("mcp_")).sort()).toEqual([
      "mcp_other_echo",
      "mcp_other_env",
      "mcp_other_pid",
    ]);
  });

  it("a late server: a status line for open sessions; its tools reach the next session, this one on reload", async () => {
    const dir = tempDir("hermes-mcp-rt-late-");
    const started = join(dir, "started");
    const release = join(dir, "release");
    const t = h.start(
      `mcp_discovery_timeout: 0.3\n${servers(entry("slow", "hang-start", { MCP_STARTED: started, MCP_RELEASE: release }))}`,
    );
    h.fake.setResponder(() => ({ text: "ok" }));
    const { runtime } = t;
    const events: AgentEvent[] = [];
    const current = runtime.newAgent((e) => events.push(e));
    await current.runConversation("first");
    // Not released yet: the server cannot have answered before this request.
    expect(existsSync(release)).toBe(false);
    expect(toolsOf(h.fake.requests.at(-1)).filter((n) => n.startsWith("mcp_"))).toEqual([]);

    writeFileSync(release, "");
    await until(() => events.some((e) => e.type === "status"), 20_000, "the status line");
    expect(events.filter((e) => e.type === "status")).toEqual([
      {
        type: "status",
        kind: "info",
        message:
          "MCP server 'slow' connected (3 tools): they reach the next session, or this one after /reload-mcp",
      },
    ]);
    await current.runConversation("second");
    expect(toolsOf(h.fake.requests.at(-1)).filter((n) => n.startsWith("mcp_"))).toEqual([]);

    const next = runtime.newAgent(() => {});
    await next.runConversation("hello");
    expect(toolsOf(h.fake.requests.at(-1))).toContain("mcp_slow_echo");

    expect((await current.reloadTools()).added).toEqual(["mcp_slow_echo", "mcp_slow_env", "mcp_slow_pid"]);
    await current.runConversation("third");
    expect(toolsOf(h.fake.requests.at(-1))).toContain("mcp_slow_echo");

    // dispose stops the server.
    const pid = Number(readFileSync(started, "utf8"));
    await runtime.dispose();
    await until(() => !alive(pid), 5000, "the server's end");
  });

  it("reload() applies config.yaml again: new servers start, removed ones stop", async () => {
    const t = h.start(`mcp_discovery_timeout: 30\n${servers(entry("first", "basic"))}`);
    const { runtime } = t;
    await runtime.mcp.ready();
    writeFileSync(
      runtime.paths.config,
      readFileSync(runtime.paths.config, "utf8").replace("  first:", "  second:"),
    );
    const outcome = await runtime.mcp.reload();
    expect(outcome).toEqual({ added: ["second"], removed: ["first"], restarted: [], problems: [] });
    expect(runtime.registry.toolsetNames().filter((n) => n.startsWith("mcp-"))).toEqual(["mcp-second"]);
  });
});
