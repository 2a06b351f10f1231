/**
 * The crash guard: who an uncaught error belongs to, and a real process (the plugin runtime and
 * the guard, from the sources) that outlives errors of a plugin, an MCP client and nobody.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { attributeFault } from "../../src/runtime/crash-guard.js";
import { writePlugin } from "../plugins/support.js";
import { startTsChild } from "../support/child.js";
import { tempDir } from "../support/temp.js";
import { logRecords } from "./crash-guard-support.js";

const folders = [
  { name: "a", dir: "/home/me/.hermes/plugins/a" },
  { name: "ab", dir: "/home/me/.hermes/plugins/ab" },
];

const withStack = (stack: string): Error => Object.assign(new Error("x"), { stack });

describe("attributeFault", () => {
  it("names the plugin whose folder holds the innermost plugin frame (file URLs and paths)", () => {
    const viaUrl = withStack(
      "Error: x\n    at Timeout._onTimeout (file:///home/me/.hermes/plugins/ab/index.mjs:9:13)\n    at listOnTimeout (node:internal/timers:685:17)",
    );
    expect(attributeFault(viaUrl, undefined, folders)).toBe("plugin:ab");
    const viaPath = withStack(
      "Error: x\n    at helper (/opt/lib/util.js:1:1)\n    at /home/me/.hermes/plugins/a/lib/x.js:3:4\n    at /home/me/.hermes/plugins/ab/index.mjs:1:1",
    );
    expect(attributeFault(viaPath, "mcp:files", folders)).toBe("plugin:a");
  });

  it("falls back on the source the code ran as, then on unknown", () => {
    const elsewhere = withStack(
      "SyntaxError: bad\n    at JSON.parse (<anonymous>)\n    at listOnTimeout (node:internal/timers:1:1)",
    );
    expect(attributeFault(elsewhere, "plugin:a", folders)).toBe("plugin:a");
    expect(attributeFault(elsewhere, "adapter:telegram", folders)).toBe("adapter:telegram");
    expect(attributeFault(elsewhere, undefined, folders)).toBe("unknown");
    // A folder whose name only starts like a plugin's is not that plugin's.
    const sibling = withStack("Error: x\n    at f (/home/me/.hermes/plugins/abc/index.mjs:1:1)");
    expect(attributeFault(sibling, undefined, folders)).toBe("unknown");
    expect(attributeFault("a string was thrown", undefined, folders)).toBe("unknown");
  });
});

const STRAY = `name: stray
entry: index.mjs
tools:
  - name: stray_tool
    description: Answers, and leaves a rejected promise behind.
hooks: [post_tool_call]
`;

const STRAY_ENTRY = `export default function register(api) {
  api.registerTool({
    name: "stray_tool",
    handler: () => {
      Promise.reject(new Error("stray rejection"));
      return "tool answered";
    },
  });
  api.on("post_tool_call", () => {
    setTimeout(JSON.parse, 5, "{not json");
  });
}
`;

describe("a process with the crash guard", () => {
  it("logs each uncaught error with its source (ten a minute per source), keeps running, and disables the plugin at its third", async () => {
    const home = tempDir("hermes-crash-guard-");
    writePlugin(join(home, "plugins"), "stray", STRAY, { "index.mjs": STRAY_ENTRY });
    const run = await startTsChild("../runtime/crash-guard-child.mjs", [home]).done;
    expect(run.stderr).not.toMatch(/Node\.js v\d/);
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split("\n");
    expect(lines[0]).toBe("tool: tool answered");
    expect(JSON.parse(lines[1]!)).toEqual({
      disabled: expect.stringMatching(/^it failed 3 times within 60 s \(last: SyntaxError: /),
      tool: false,
      hooks: false,
    });

    const records = logRecords(join(home, "logs", "agent.log"));
    const crashes = records
      .filter((r) => r.msg === "uncaught exception" || r.msg === "unhandled rejection")
      .map((r) => [r.msg, r.source, String(r.error).split(":")[0]]);
    expect(crashes.slice(0, 5)).toEqual([
      ["uncaught exception", "plugin:stray", "SyntaxError"],
      ["unhandled rejection", "plugin:stray", "Error"],
      ["uncaught exception", "mcp:files", "Error"],
      ["uncaught exception", "unknown", "Error"],
      ["uncaught exception", "plugin:stray", "SyntaxError"],
    ]);
    // Of the fifteen that flooded in from nowhere, nine more fill the source's ten a minute.
    expect(crashes.slice(5)).toEqual(Array(9).fill(["uncaught exception", "unknown", "Error"]));
    expect(run.stderr.match(/from an unknown source/g)).toHaveLength(10);
    expect(records.find((r) => r.msg === "plugin disabled")).toMatchObject({ plugin: "stray" });
    expect(run.stderr).toContain("hermes: unhandled rejection from plugin 'stray': Error: stray rejection");
    expect(run.stderr).toContain(
      "hermes: uncaught exception from MCP server 'files': Error: mcp client failure",
    );
    expect(run.stderr).toContain(
      "hermes: uncaught exception from an unknown source: Error: nobody's failure",
    );
    expect(run.stderr).toMatch(/hermes: plugin 'stray' disabled: it failed 3 times within 60 s/);
  }, 30_000);
});
