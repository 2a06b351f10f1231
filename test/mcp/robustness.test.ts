/**
 * Real MCP servers over stdio whose tools are awkward: names that sanitize alike (on one server and
 * across servers) all stay callable under stable names, and a malformed tool is left out alone.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { currentSource } from "../../src/core/fault-source.js";
import { McpManager } from "../../src/mcp/manager.js";
import type { ToolContext } from "../../src/tools/context.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { cleanEnv, runHermes, sandbox } from "../support/cli.js";
import { tempDir } from "../support/temp.js";
import { FIXTURE, host, ROOT, server, startManager, textOf } from "./support.js";

const AWKWARD = join(ROOT, "test", "fixtures", "mcp", "awkward-server.mjs");
const awkward = (name: string, mode: string) =>
  server(name, { command: process.execPath, args: [AWKWARD, mode] });

/** The mark a colliding tool gets: sha256 of "<server>\0<tool>", first 6 hex digits. */
const mark = (...parts: string[]) => createHash("sha256").update(parts.join("\0")).digest("hex").slice(0, 6);

describe("tools whose names sanitize alike", () => {
  it("on one server: all stay callable, the one already in sanitized form keeps the plain name", async () => {
    const expected = [
      "mcp_s_a_b",
      `mcp_s_a_b_${mark("s", "a.b")}`,
      `mcp_s_a_b_${mark("s", "a/b")}`,
      "mcp_s_ok",
    ].sort();
    for (let start = 0; start < 2; start++) {
      // A second start gives every tool the same name again.
      const h = startManager([awkward("s", "collide")]);
      await h.waitFor((e) => e.kind === "connected");
      expect(h.registry.toolsInToolset("mcp-s").sort()).toEqual(expected);
      expect(textOf(await h.call("mcp_s_a_b"))).toBe("ran a_b of collide");
      expect(textOf(await h.call(`mcp_s_a_b_${mark("s", "a.b")}`))).toBe("ran a.b of collide");
      expect(textOf(await h.call(`mcp_s_a_b_${mark("s", "a/b")}`))).toBe("ran a/b of collide");
      expect(h.events.filter((e) => e.kind === "renamed_tool")).toEqual([
        {
          kind: "renamed_tool",
          server: "s",
          message: `tool 'a.b' is registered as 'mcp_s_a_b_${mark("s", "a.b")}' ('mcp_s_a_b' is also the name of its tool 'a_b')`,
        },
        {
          kind: "renamed_tool",
          server: "s",
          message: `tool 'a/b' is registered as 'mcp_s_a_b_${mark("s", "a/b")}' ('mcp_s_a_b' is also the name of its tool 'a_b')`,
        },
      ]);
      await h.manager.close();
    }
  });

  it("across servers: both tools stay callable and reach their own server", async () => {
    // Server a's tool b_c and server a_b's tool c are both mcp_a_b_c.
    const h = startManager([awkward("a", "shared"), awkward("a_b", "c")]);
    await h.waitFor((e) => e.kind === "connected" && e.server === "a");
    await h.waitFor((e) => e.kind === "connected" && e.server === "a_b");
    const names = [...h.registry.toolsInToolset("mcp-a"), ...h.registry.toolsInToolset("mcp-a_b")].sort();
    expect(names).toHaveLength(2);
    expect(names).toContain("mcp_a_b_c");
    const [renamed] = h.events.filter((e) => e.kind === "renamed_tool");
    expect(renamed).toBeDefined();
    const second = renamed!.server === "a" ? ["a", "b_c", "shared"] : ["a_b", "c", "c"];
    const marked = `mcp_a_b_c_${mark(second[0]!, second[1]!)}`;
    expect(names).toContain(marked);
    expect(textOf(await h.call(marked))).toBe(`ran ${second[1]} of ${second[2]}`);
    const first = second[0] === "a" ? "ran c of c" : "ran b_c of shared";
    expect(textOf(await h.call("mcp_a_b_c"))).toBe(first);
    expect(h.events.some((e) => e.kind === "skipped_tool")).toBe(false);
  });

  it("servers whose names sanitize alike get toolsets of their own", async () => {
    const h = startManager([awkward("x.y", "shared"), awkward("x_y", "shared")]);
    await h.waitFor((e) => e.kind === "connected" && e.server === "x.y");
    await h.waitFor((e) => e.kind === "connected" && e.server === "x_y");
    const dotted = `mcp-x_y-${mark("x.y")}`;
    expect(h.registry.toolsetNames().sort()).toEqual([dotted, "mcp-x_y"].sort());
    const [plain] = h.registry.toolsInToolset("mcp-x_y");
    const [other] = h.registry.toolsInToolset(dotted);
    expect([plain, other].sort()).toEqual(
      [
        "mcp_x_y_b_c",
        `mcp_x_y_b_c_${mark(h.events.find((e) => e.kind === "renamed_tool")!.server, "b_c")}`,
      ].sort(),
    );
    expect(textOf(await h.call(plain!))).toBe("ran b_c of shared");
    expect(textOf(await h.call(other!))).toBe("ran b_c of shared");
  });
});

describe("tools with malformed input schemas", () => {
  it("are left out one by one with the reason; the rest of the server registers", async () => {
    const h = startManager([awkward("s", "schemas")]);
    await h.waitFor((e) => e.kind === "connected");
    expect(h.registry.toolsInToolset("mcp-s").sort()).toEqual([
      "mcp_s_draft_04",
      "mcp_s_draft_2020",
      "mcp_s_good",
      "mcp_s_no_schema",
      "mcp_s_ref_ok",
    ]);
    expect(textOf(await h.call("mcp_s_good", { x: "y" }))).toBe("ran good of schemas");
    expect(textOf(await h.call("mcp_s_no_schema"))).toBe("ran no_schema of schemas");
    expect(h.registry.get("mcp_s_no_schema")?.schema.parameters).toEqual({ type: "object", properties: {} });
    const skipped = h.events
      .filter((e) => e.kind === "skipped_tool")
      .map((e) => (e as { message: string }).message);
    expect(skipped).toEqual([
      "tool 'not_object': its input schema is a string, not an object",
      `tool 'string_type': its input schema has type "string", not "object"`,
      "tool 'props_list': the 'properties' of its input schema is a list, not an object",
      "tool 'prop_text': the property 'x' of its input schema is a string, not a schema",
      "tool 'bad_required': the 'required' of its input schema is not a list of property names",
      expect.stringMatching(
        /^tool 'typo_type': its input schema is not valid JSON Schema: \/properties\/x\/type must be /,
      ),
      expect.stringMatching(
        /^tool 'bad_ref': its input schema is not valid JSON Schema: can't resolve reference #\/\$defs\/missing/,
      ),
      "tool 'good': the server lists it twice; the first one is kept",
      "tool '#14': the tool at position 14 has no name",
    ]);
  });
});

describe("hermes mcp test on a server with awkward tools", () => {
  it("prints one readable line per tool left out and per tool renamed", async () => {
    const config = (mode: string) =>
      `mcp_servers:\n  s:\n    command: ${process.execPath}\n    args: [${AWKWARD}, ${mode}]\n`;
    const box = sandbox(config("schemas"));
    const env = cleanEnv({ HERMES_HOME: box.home });
    const r = await runHermes(["mcp", "test", "s"], { env, cwd: box.work });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^Connected to MCP server 's' \(stdio\) in \d+ ms: 5 tools \(9 left out, see below\)\.$/m,
    );
    expect(r.stdout).toMatch(/^mcp_s_good\s+\d+\s+\d+$/m);
    const leftOut = r.stdout.split("\n").filter((l) => l.startsWith("Left out tool "));
    expect(leftOut).toHaveLength(9);
    expect(leftOut).toContain(
      `Left out tool 'string_type': its input schema has type "string", not "object".`,
    );
    expect(leftOut).toContain("Left out tool '#14': the tool at position 14 has no name.");

    const collide = sandbox(config("collide"));
    const c = await runHermes(["mcp", "test", "s"], {
      env: cleanEnv({ HERMES_HOME: collide.home }),
      cwd: collide.work,
    });
    expect(c.code).toBe(0);
    expect(c.stdout).toContain(
      `Renamed: tool 'a.b' is registered as 'mcp_s_a_b_${mark("s", "a.b")}' ('mcp_s_a_b' is also the name of its tool 'a_b').`,
    );
  });
});

describe("a server's client code", () => {
  it("runs as that server, so the crash guard can name it", async () => {
    const seen: Array<[string, string | undefined]> = [];
    const manager = new McpManager({
      registry: new ToolRegistry<ToolContext>(),
      servers: [server("files", { command: process.execPath, args: [FIXTURE, "basic"] })],
      host,
      env: process.env,
      logDir: tempDir("hermes-mcp-source-"),
      clientVersion: "test",
      discoveryTimeoutMs: 20_000,
      onStatus: (e) => void seen.push([e.kind, currentSource()]),
    });
    try {
      manager.start();
      await manager.ready();
      expect(seen).toEqual([["connected", "mcp:files"]]);
      expect(currentSource()).toBeUndefined();
    } finally {
      await manager.close();
    }
  });
});
