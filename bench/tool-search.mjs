// The tool search bridge: bytes of the first model request (system prompt + tool schemas) with the
// default toolsets (hermes-cli) as an interactive user with an image-capable model gets them (clarify
// and vision_analyze included), alone and with 300 deferrable (MCP/plugin-style) tools, bridge on and
// off, and with every built-in tool enabled; sent through the real agent and SDK to the fake LLM
// server. Then the latency of one tool_search over a catalog of 1 000 tools (median and p95).
// Needs a build (npm run build): it loads dist/.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent } from "../dist/agent/agent.js";
import { DEFAULT_CONFIG } from "../dist/core/config.js";
import { registerBuiltinTools } from "../dist/tools/builtin/index.js";
import { createLocalEnvironmentProvider } from "../dist/tools/environments/local.js";
import { ToolRegistry } from "../dist/tools/registry.js";
import { ToolCatalog } from "../dist/tools/tool-search/catalog.js";
import { selectTools } from "../dist/tools/toolsets.js";
import { startFakeLlm } from "../test/support/fake-llm.ts";
import { fmt, median } from "./lib.mjs";

const SERVICES = [
  "github",
  "slack",
  "jira",
  "drive",
  "calendar",
  "crm",
  "billing",
  "notion",
  "linear",
  "stripe",
];
const VERBS = ["create", "list", "get", "update", "delete", "archive", "search", "export", "assign", "close"];
const OBJECTS = [
  "issue",
  "message",
  "ticket",
  "file",
  "event",
  "customer",
  "invoice",
  "page",
  "project",
  "payment",
  "comment",
  "label",
  "user",
  "folder",
  "report",
  "order",
  "task",
  "channel",
  "subscription",
  "note",
  "release",
  "refund",
  "contact",
  "meeting",
  "document",
  "branch",
  "board",
  "sprint",
  "webhook",
  "quote",
];

/** `count` tool definitions shaped like MCP tools: a server prefix, a sentence, a few parameters. */
function syntheticTools(count) {
  const out = [];
  for (let i = 0; out.length < count; i++) {
    const service = SERVICES[i % SERVICES.length];
    const verb = VERBS[Math.floor(i / SERVICES.length) % VERBS.length];
    const object = OBJECTS[Math.floor(i / (SERVICES.length * VERBS.length)) % OBJECTS.length];
    out.push({
      name: `mcp_${service}_${verb}_${object}`,
      toolset: `mcp-${service}`,
      description: `${verb[0].toUpperCase()}${verb.slice(1)} a ${object} in ${service}. Returns the ${object} as JSON.`,
      parameters: {
        type: "object",
        properties: {
          [`${object}_id`]: { type: "string", description: `The ${object}'s id.` },
          workspace: { type: "string", description: `The ${service} workspace.` },
          limit: { type: "integer", description: "Most items to return." },
        },
        required: [`${object}_id`],
      },
    });
  }
  return out;
}

const fake = await startFakeLlm();
fake.setResponder(() => ({ text: "ok" }));

/**
 * Bytes of the first request and of its tool list, for a registry built by `extra`. `every`: every
 * registered tool instead of the default toolsets; image_generate needs a key to be offered, so a
 * placeholder one is set for that row (the fake model never calls it).
 */
async function firstRequest(label, extra, { enabled = "auto", every = false } = {}) {
  const home = mkdtempSync(join(tmpdir(), "hermes-bench-ts-"));
  const config = structuredClone(DEFAULT_CONFIG);
  config.tools.tool_search.enabled = enabled;
  // An image-capable main model takes vision_analyze's images natively.
  config.vision.native = true;
  const registry = new ToolRegistry();
  const keyBefore = process.env.FAL_KEY;
  if (every) process.env.FAL_KEY ??= "bench-placeholder";
  registerBuiltinTools(registry, config);
  extra(registry);
  const selected = () =>
    every
      ? new Set(registry.names())
      : new Set([
          ...selectTools(config.toolsets, config.agent.disabled_toolsets, registry).tools,
          ...registry.names().filter((n) => registry.get(n).deferrable),
        ]);
  const agent = new Agent({
    target: {
      provider: "custom",
      apiMode: "chat_completions",
      model: "bench",
      baseUrl: fake.openaiBaseUrl,
      apiKey: "k",
    },
    registry,
    toolNames: selected,
    // An interactive CLI user can be asked: clarify is offered.
    clarify: async () => "",
    config,
    home,
    environments: createLocalEnvironmentProvider({ cwd: home, home }),
    maxRetries: 0,
  });
  const before = fake.requests.length;
  await agent.runConversation("hi");
  await agent.close();
  if (keyBefore === undefined) delete process.env.FAL_KEY;
  const req = fake.requests[before];
  const tools = req.body.tools ?? [];
  return {
    label,
    bytes: Buffer.byteLength(req.rawBody),
    toolBytes: Buffer.byteLength(JSON.stringify(tools)),
    listed: tools.length,
    // Listed tools plus those behind the bridge (tool_search, tool_describe, tool_call).
    reachable: agent.toolSearch?.active ? tools.length - 3 + agent.toolSearch.deferrableTools : tools.length,
  };
}

const deferrable300 = (registry) => {
  for (const t of syntheticTools(300))
    registry.register({
      name: t.name,
      toolset: t.toolset,
      deferrable: true,
      schema: { description: t.description, parameters: t.parameters },
      handler: () => "ok",
    });
};

const rows = [
  await firstRequest("default toolsets (hermes-cli)", () => {}),
  await firstRequest("+ 300 deferrable, bridge on", deferrable300),
  await firstRequest("+ 300 deferrable, bridge off", deferrable300, { enabled: "off" }),
  await firstRequest("every built-in tool", () => {}, { every: true }),
  await firstRequest("every built-in + 300, bridge on", deferrable300, { every: true }),
];
console.log("First request, default toolsets (target: under 15 KB, every tool reachable)");
for (const r of rows)
  console.log(
    `  ${r.label.padEnd(30)} ${fmt(r.bytes / 1024, 2).padStart(6)} KB request  ${fmt(r.toolBytes / 1024).padStart(6)} KB tools  ${String(r.listed).padStart(3)} listed / ${r.reachable} reachable`,
  );
console.log(`  bridge cost: ${fmt((rows[1].toolBytes - rows[0].toolBytes) / 1024, 2)} KB for 300 tools`);
await fake.close();

// tool_search over 1 000 tools: one catalog, many queries.
const tools = syntheticTools(1000).map((t) => ({
  definition: { name: t.name, description: t.description, parameters: t.parameters },
  toolset: t.toolset,
}));
const builds = [];
let catalog;
for (let i = 0; i < 5; i++) {
  const t0 = performance.now();
  catalog = new ToolCatalog(tools);
  builds.push(performance.now() - t0);
}
let started;
const queries = [];
for (let i = 0; i < 300; i++) {
  const s = SERVICES[(i * 7) % SERVICES.length];
  const v = VERBS[(i * 3) % VERBS.length];
  const o = OBJECTS[(i * 11) % OBJECTS.length];
  queries.push(
    [`${v} ${o}`, `${s} ${o}`, `${s} ${v} ${o} by id`, `how do I ${v} the ${o}s`, `${o.slice(0, 4)}`][i % 5],
  );
}
for (const q of queries) catalog.search(q, 5); // warm-up
const samples = [];
let hits = 0;
for (let round = 0; round < 5; round++)
  for (const q of queries) {
    started = performance.now();
    const found = catalog.search(q, 5);
    samples.push((performance.now() - started) * 1000);
    if (found.length > 0) hits++;
  }
samples.sort((a, b) => a - b);
console.log(
  `tool_search over ${catalog.size} tools: median ${fmt(median(samples), 0)} µs, p95 ${fmt(samples[Math.floor(samples.length * 0.95)], 0)} µs ` +
    `(${samples.length} searches, ${hits} with matches); index built in ${fmt(median(builds))} ms (median of 5, best ${fmt(Math.min(...builds))})`,
);
