// MCP at start-up, through the real binary (`hermes -z`) against an instant fake LLM server: time
// from spawn to the first model request with no MCP server, with 5 real servers (server-everything,
// server-filesystem and three small SDK servers), and with 5 where one hangs at start (bounded by
// mcp_discovery_timeout); the size of that first request, its tool count and how many MCP tools made
// it in; the size of a first request that carries every tool of the 5 servers, and of one that
// reaches them through the tool search bridge (tools.tool_search.enabled: true).
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeLlm } from "../test/support/fake-llm.ts";
import { BIN, fmt, median, ROOT, repeat } from "./lib.mjs";

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const fake = await startFakeLlm();
fake.setResponder(() => ({ text: "ok" }));

const node = process.execPath;
const fixture = join(ROOT, "test", "fixtures", "mcp", "server.mjs");
const pkg = (name) => join(ROOT, "node_modules", "@modelcontextprotocol", name, "dist", "index.js");
const server = (name, args) =>
  `  ${name}:\n    command: ${node}\n    args: [${args.map((a) => JSON.stringify(a)).join(", ")}]\n`;

/** A fresh HERMES_HOME whose config.yaml names the servers `servers(work)` lists, and a work folder. */
function sandbox(servers, extra) {
  const root = mkdtempSync(join(tmpdir(), "hermes-bench-mcp-"));
  const home = join(root, "home");
  const work = join(root, "work");
  mkdirSync(home);
  mkdirSync(work);
  const list = servers(work);
  const mcp = list.length ? `mcp_servers:\n${list.join("")}` : "";
  writeFileSync(
    join(home, "config.yaml"),
    `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: bench\n${extra}${mcp}`,
  );
  return { root, home, work };
}

const five = (work) => [
  server("everything", [pkg("server-everything"), "stdio"]),
  server("files", [pkg("server-filesystem"), work]),
  server("alpha", [fixture, "basic"]),
  server("beta", [fixture, "changing"]),
  server("gamma", [fixture, "basic"]),
];

/** One `hermes -z` run: ms from spawn to the first request, its size and tool count. */
async function firstRequest(servers, extra = "") {
  const { root, home, work } = sandbox(servers, extra);
  const before = fake.requests.length;
  const started = Date.now();
  const child = spawn(node, [BIN, "-z", "hi"], {
    cwd: work,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, HERMES_HOME: home },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const code = await new Promise((resolve) => child.on("close", resolve));
  const req = fake.requests[before];
  if (code !== 0 || !req) throw new Error(`run failed: exit ${code}`);
  rmSync(root, { recursive: true, force: true });
  const tools = req.body.tools ?? [];
  const names = tools.map((t) => t.function.name);
  // Tools behind the bridge: tool_search's description says how many it searches.
  const search = tools.find((t) => t.function.name === "tool_search");
  const deferred = Number(search?.function.description.match(/Search (\d+) more tools/)?.[1] ?? 0);
  return {
    reachable: names.length - (search ? 3 : 0) + deferred,
    ms: req.receivedAt - started,
    bytes: Buffer.byteLength(req.rawBody),
    tools: names.length,
    mcpTools: names.filter((n) => n.startsWith("mcp_")).length,
  };
}

const scenarios = [
  ["no MCP server", () => []],
  ["5 MCP servers", (work) => five(work)],
  ["5, one hung at start", (work) => [...five(work).slice(0, 4), server("stuck", [fixture, "hang-start"])]],
  // Every server answers before the first request: its size with all their tools.
  ["5, all tools waited for", (work) => five(work), "mcp_discovery_timeout: 60\n"],
  // The same tools behind tool_search / tool_describe / tool_call.
  [
    "5, all, tool search on",
    (work) => five(work),
    "mcp_discovery_timeout: 60\ntools:\n  tool_search:\n    enabled: true\n",
  ],
];

console.log(`MCP start-up: spawn to first model request, hermes -z (median of ${RUNS})`);
const results = [];
for (const [label, servers, extra] of scenarios) {
  await firstRequest(servers, extra); // warm-up (compile cache, page cache)
  const rs = await repeat(RUNS, () => firstRequest(servers, extra));
  results.push({
    label,
    ms: median(rs.map((x) => x.ms)),
    bytes: median(rs.map((x) => x.bytes)),
    tools: median(rs.map((x) => x.tools)),
    mcpTools: median(rs.map((x) => x.mcpTools)),
    reachable: median(rs.map((x) => x.reachable)),
  });
}
const base = results[0];
for (const r of results) {
  const delta = r === base ? "" : `  (+${fmt(r.ms - base.ms, 0)} ms vs none)`;
  console.log(
    `  ${r.label.padEnd(24)} ${fmt(r.ms, 0).padStart(5)} ms${delta.padEnd(22)} first request ${fmt(r.bytes / 1024)} KB, ${r.tools} tools (${r.mcpTools} MCP), ${r.reachable} reachable`,
  );
}
console.log("  (mcp_discovery_timeout 1.5 s bounds the wait; a hung server adds at most that)");
await fake.close();
