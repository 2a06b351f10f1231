/**
 * The tool search bridge through the real agent, the OpenAI SDK and the scripted provider: 300
 * deferrable tools leave the request, and the model finds, describes and calls one through
 * tool_search, tool_describe and tool_call; tool_call's errors, argument checks and approvals
 * are those of a direct call; scripts (execute_code) reach deferred tools the same way.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { AgentEvent } from "../../src/agent/events.js";
import { HookBus } from "../../src/agent/hooks.js";
import { DEFAULT_CONFIG, type HermesConfig } from "../../src/core/config.js";
import { ApprovalSession } from "../../src/tools/approval/session.js";
import type { ApprovalChoice, ApprovalRequest, ApproveFn } from "../../src/tools/approval/types.js";
import { registerBuiltinTools } from "../../src/tools/builtin/index.js";
import type { HermesToolRegistry, ToolContext } from "../../src/tools/context.js";
import { createLocalEnvironmentProvider } from "../../src/tools/environments/local.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { sourceNames } from "../../src/tools/tool-search/bridge.js";
import { type CatalogTool, ToolCatalog } from "../../src/tools/tool-search/catalog.js";
import { type FakeLlm, type RecordedRequest, type ScriptedTurn, startFakeLlm } from "../support/fake-llm.js";
import { tempDir } from "../support/temp.js";

let fake: FakeLlm;
beforeAll(async () => {
  fake = await startFakeLlm();
});
afterAll(() => fake.close());

const VERBS = ["create", "list", "get", "update", "delete", "archive", "export", "import", "assign", "close"];
const OBJECTS = [
  "invoice",
  "customer",
  "ticket",
  "order",
  "product",
  "shipment",
  "refund",
  "contact",
  "campaign",
  "report",
  "lead",
  "quote",
  "payment",
  "subscription",
  "coupon",
  "supplier",
  "warehouse",
  "employee",
  "meeting",
  "task",
  "project",
  "contract",
  "vendor",
  "asset",
  "budget",
  "expense",
  "survey",
  "note",
  "document",
  "label",
];
const BRIDGE = ["tool_call", "tool_describe", "tool_search"];

interface Ran {
  name: string;
  args: Record<string, unknown>;
}

/** 300 deferrable tools (`crm_<verb>_<object>`) in toolset plugin-crm, recording their calls. */
function registerCrm(registry: HermesToolRegistry, ran: Ran[]): void {
  for (const verb of VERBS)
    for (const object of OBJECTS) {
      const name = `crm_${verb}_${object}`;
      registry.register({
        name,
        toolset: "plugin-crm",
        deferrable: true,
        schema: {
          description: `${verb[0]!.toUpperCase()}${verb.slice(1)} a ${object} record in the CRM.`,
          parameters: {
            type: "object",
            properties: {
              [`${object}_id`]: { type: "string", description: `The ${object}'s id.` },
              reason: { type: "string", description: "Why, for the audit log." },
            },
            required: [`${object}_id`],
          },
        },
        handler: (args) => {
          ran.push({ name, args });
          return JSON.stringify({ ok: true, tool: name });
        },
      });
    }
}

interface Setup {
  registry: HermesToolRegistry;
  ran: Ran[];
  events: AgentEvent[];
  agent: Agent;
  work: string;
}

function setup(
  o: {
    crm?: boolean;
    config?: (c: HermesConfig) => void;
    approve?: ApproveFn;
    hooks?: HookBus;
    extra?: (r: HermesToolRegistry) => void;
  } = {},
): Setup {
  const home = tempDir("hermes-bridge-home-");
  const work = tempDir("hermes-bridge-work-");
  const config = structuredClone(DEFAULT_CONFIG);
  o.config?.(config);
  const registry: HermesToolRegistry = new ToolRegistry<ToolContext>();
  registerBuiltinTools(registry, config);
  const ran: Ran[] = [];
  if (o.crm !== false) registerCrm(registry, ran);
  o.extra?.(registry);
  const events: AgentEvent[] = [];
  const agent = new Agent({
    target: {
      provider: "custom",
      apiMode: "chat_completions",
      model: "gpt-test",
      baseUrl: fake.openaiBaseUrl,
      apiKey: "k",
    },
    registry,
    toolNames: () => new Set(registry.names()),
    config,
    home,
    environments: createLocalEnvironmentProvider({ cwd: work, home: work }),
    maxRetries: 0,
    approvals: new ApprovalSession({ mode: "manual", timeoutSeconds: 60 }),
    ...(o.approve ? { approve: o.approve } : {}),
    ...(o.hooks ? { hooks: o.hooks } : {}),
    onEvent: (e) => events.push(e),
  });
  return { registry, ran, events, agent, work };
}

/** Runs one request with the scripted turns; returns the requests it made. */
async function run(s: Setup, ...turns: ScriptedTurn[]): Promise<RecordedRequest[]> {
  const before = fake.requests.length;
  fake.enqueue(...turns);
  try {
    const r = await s.agent.runConversation("go");
    expect(r.error).toBeUndefined();
    expect(r.status).toBe("completed");
  } finally {
    await s.agent.close();
  }
  return fake.requests.slice(before);
}

const call = (name: string, args: Record<string, unknown>): ScriptedTurn => ({
  toolCalls: [{ name, arguments: args }],
});
const toolNames = (r: RecordedRequest): string[] =>
  (r.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name);
const toolMessages = (r: RecordedRequest): string[] =>
  (r.body.messages as Array<{ role: string; content: string }>)
    .filter((m) => m.role === "tool")
    .map((m) => m.content);
const lastToolMessage = (r: RecordedRequest): string => toolMessages(r).at(-1)!;

/** An approve callback answering from a script and recording what it was asked. */
function scripted(...answers: ApprovalChoice[]): ApproveFn & { asked: ApprovalRequest[] } {
  const asked: ApprovalRequest[] = [];
  const fn = async (req: ApprovalRequest): Promise<ApprovalChoice> => {
    asked.push(req);
    return answers.shift() ?? "deny";
  };
  return Object.assign(fn, { asked });
}

describe("tool_search's list of sources", () => {
  const tool = (name: string, toolset: string): CatalogTool => ({
    definition: { name, description: "d", parameters: { type: "object", properties: {} } },
    toolset,
  });

  it("names MCP servers once under MCP, other toolsets as they are, biggest first", () => {
    const catalog = new ToolCatalog([
      tool("mcp_github_a", "mcp-github"),
      tool("mcp_github_b", "mcp-github"),
      tool("weather_now", "plugin-weather"),
      tool("mcp_files_a", "mcp-files"),
    ]);
    expect(sourceNames(catalog)).toBe("MCP: github, files; plugin-weather");
  });

  it("stops after twelve sources and says how many more", () => {
    const many = Array.from({ length: 14 }, (_, i) =>
      tool(`mcp_s${i}_ping`, `mcp-s${String(i).padStart(2, "0")}`),
    );
    const names = sourceNames(new ToolCatalog(many));
    expect(names).toMatch(/^MCP: s00, s01, .*, s11 and 2 more$/);
    expect(names).not.toContain("s12");
  });
});

describe("300 deferrable tools behind the bridge", () => {
  it("leave the request; the model finds, describes and calls one through the bridge", async () => {
    const s = setup();
    const plain = setup({ crm: false });
    const { tools: builtins } = await plain.agent.prepareSession();
    const requests = await run(
      s,
      call("tool_search", { query: "archive a shipment" }),
      call("tool_describe", { name: "crm_archive_shipment" }),
      call("tool_call", {
        name: "crm_archive_shipment",
        arguments: { shipment_id: "S-42", reason: "lost in transit" },
      }),
      { text: "Archived." },
    );
    expect(requests).toHaveLength(4);
    // The request lists the built-in tools as before, plus the bridge, and none of the 300.
    const names = toolNames(requests[0]!);
    expect(names).toEqual([...builtins.map((t) => t.function.name), ...BRIDGE].sort());
    expect(names.filter((n) => n.startsWith("crm_"))).toEqual([]);
    const search = (
      requests[0]!.body.tools as Array<{ function: { name: string; description: string } }>
    ).find((t) => t.function.name === "tool_search")!.function.description;
    expect(search).toBe("Search 300 more tools by keywords (plugin-crm). Run one with tool_call.");

    const found = JSON.parse(lastToolMessage(requests[1]!)) as {
      total_tools: number;
      matches: Array<{ name: string; required: string[] }>;
    };
    expect(found.total_tools).toBe(300);
    expect(found.matches).toHaveLength(5);
    expect(found.matches[0]).toMatchObject({ name: "crm_archive_shipment", required: ["shipment_id"] });

    const described = JSON.parse(lastToolMessage(requests[2]!));
    expect(described).toEqual({
      name: "crm_archive_shipment",
      description: "Archive a shipment record in the CRM.",
      parameters: s.registry.get("crm_archive_shipment")!.schema.parameters,
    });

    expect(lastToolMessage(requests[3]!)).toBe('{"ok":true,"tool":"crm_archive_shipment"}');
    expect(s.ran).toEqual([
      { name: "crm_archive_shipment", args: { shipment_id: "S-42", reason: "lost in transit" } },
    ]);
    expect(s.events).toContainEqual(
      expect.objectContaining({
        type: "inner_tool",
        parent: "tool_call",
        name: "crm_archive_shipment",
        isError: false,
      }),
    );
    expect(s.agent.toolSearch).toMatchObject({ mode: "auto", active: true, deferrableTools: 300 });
    // Every later request of the session carries the same tool list, byte for byte.
    const first = JSON.stringify(requests[0]!.body.tools);
    for (const r of requests) expect(JSON.stringify(r.body.tools)).toBe(first);
  });

  it("honours a search limit up to max_search_limit", async () => {
    const s = setup({ config: (c) => (c.tools.tool_search.max_search_limit = 7) });
    const requests = await run(
      s,
      call("tool_search", { query: "shipment", limit: 3 }),
      call("tool_search", { query: "shipment", limit: 50 }),
      { text: "ok" },
    );
    const counts = requests.slice(1).map((r) => JSON.parse(lastToolMessage(r)).matches.length);
    expect(counts).toEqual([3, 7]);
  });

  it("tool_call refuses listed and unknown tools and checks arguments as a direct call does", async () => {
    const s = setup();
    const requests = await run(
      s,
      {
        toolCalls: [
          { name: "tool_call", arguments: { name: "terminal", arguments: { command: "echo hi" } } },
          { name: "tool_call", arguments: { name: "crm_cancel_everything", arguments: {} } },
          { name: "tool_call", arguments: { name: "crm_archive_shipment", arguments: { reason: 5 } } },
        ],
      },
      { text: "ok" },
    );
    const messages = toolMessages(requests[1]!);
    // The loop guardrails count failed bridge calls as they count direct ones.
    expect(messages[2]).toMatch(/\[Loop guard: tool_call has failed 3 times in a row/);
    const [listed, unknown, invalid] = messages.map((m) => JSON.parse(m.split("\n\n")[0]!).error as string);
    expect(listed).toBe("'terminal' is not a deferred tool: it is in your tool list, so call it directly.");
    // No suggestion: the one word it shares with the tools is the one they all have.
    expect(unknown).toBe(
      "No deferred tool is named 'crm_cancel_everything' in this session; use the exact name tool_search lists.",
    );
    const direct = await s.registry.dispatch("crm_archive_shipment", { reason: 5 }, {} as ToolContext);
    expect(invalid).toBe(JSON.parse(direct).error);
    expect(invalid).toMatch(/shipment_id/);
    expect(s.ran).toEqual([]);
  });
});

describe("hooks through tool_call", () => {
  it("pre_tool_call sees the deferred tool by its own name only, may block it or change its arguments", async () => {
    const hooks = new HookBus({ timeoutMs: 5000, report: () => {} });
    const seen: string[] = [];
    hooks.on({
      name: "pre_tool_call",
      label: "test",
      handler: (p) => {
        const tool = String(p.tool_name);
        seen.push(tool);
        if (tool.startsWith("crm_delete_")) return { action: "block", message: "Deleting is off today." };
        if (tool === "crm_close_ticket")
          return { action: "modify", args: { ticket_id: "T-1", reason: "by hook" } };
        return undefined;
      },
    });
    const s = setup({ hooks });
    const requests = await run(
      s,
      call("tool_call", { name: "crm_delete_invoice", arguments: { invoice_id: "I-9" } }),
      call("tool_call", { name: "crm_close_ticket", arguments: { ticket_id: "T-1" } }),
      { text: "ok" },
    );
    expect(JSON.parse(lastToolMessage(requests[1]!))).toEqual({ error: "Deleting is off today." });
    expect(lastToolMessage(requests[2]!)).toBe('{"ok":true,"tool":"crm_close_ticket"}');
    expect(s.ran).toEqual([{ name: "crm_close_ticket", args: { ticket_id: "T-1", reason: "by hook" } }]);
    expect(seen).toEqual(["crm_delete_invoice", "crm_close_ticket"]);
  });
});

describe("approvals through tool_call", () => {
  /** A deferrable plugin tool that runs shell commands through the terminal tool (and its approvals). */
  const opsShell = (r: HermesToolRegistry) =>
    r.register({
      name: "ops_shell",
      toolset: "plugin-ops",
      deferrable: true,
      schema: {
        description: "Run an operations command.",
        parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
      },
      handler: (args, ctx) => r.get("terminal")!.handler(args, ctx),
    });
  const COMMAND = "git push --force origin main";

  /** The tool result of ops_shell run directly (bridge off) and through tool_call (bridge on). */
  async function both(approve: () => ApproveFn | undefined): Promise<{ direct: string; bridged: string }> {
    const direct = setup({
      crm: false,
      extra: opsShell,
      approve: approve(),
      config: (c) => (c.tools.tool_search.enabled = "off"),
    });
    const d = await run(direct, call("ops_shell", { command: COMMAND }), { text: "ok" });
    const bridged = setup({
      crm: false,
      extra: opsShell,
      approve: approve(),
      config: (c) => (c.tools.tool_search.enabled = "on"),
    });
    const b = await run(bridged, call("tool_call", { name: "ops_shell", arguments: { command: COMMAND } }), {
      text: "ok",
    });
    expect(toolNames(b[0]!)).not.toContain("ops_shell");
    return { direct: lastToolMessage(d[1]!), bridged: lastToolMessage(b[1]!) };
  }

  it("a flagged command asks, and a denial answers exactly as for a direct call", async () => {
    const approvers: Array<ReturnType<typeof scripted>> = [];
    const r = await both(() => {
      const a = scripted("deny");
      approvers.push(a);
      return a;
    });
    expect(r.bridged).toBe(r.direct);
    expect(JSON.parse(r.bridged).error).toMatch(/^The user denied this command/);
    expect(approvers.map((a) => a.asked.map((q) => q.command))).toEqual([[COMMAND], [COMMAND]]);
  });

  it("with nobody to ask it is refused; approved once it runs", async () => {
    const unattended = await both(() => undefined);
    expect(unattended.bridged).toBe(unattended.direct);
    expect(JSON.parse(unattended.bridged).error).toMatch(
      /^Command needs approval and this run has no one to ask/,
    );
    const approved = await both(() => scripted("once"));
    const result = JSON.parse(approved.bridged) as { error?: string; exit_code?: number };
    expect(result.error).toBeUndefined();
    // It ran: outside a repository git fails, which is all this command can do here.
    expect(result.exit_code).not.toBe(0);
  });
});

describe("the bridge inside execute_code", () => {
  it("a script searches the deferred tools and calls one through tool_call", async () => {
    const s = setup();
    const code = [
      "from hermes_tools import tool_search, tool_call",
      'found = tool_search("archive shipment", 3)',
      'name = found["matches"][0]["name"]',
      'r = tool_call(name, {"shipment_id": "S-7", "reason": "damaged"})',
      'bad = tool_call("terminal", {"command": "echo hi"})',
      'print(name, r["ok"], bad["error"])',
    ].join("\n");
    const requests = await run(s, call("execute_code", { code }), { text: "done" });
    const description = (
      requests[0]!.body.tools as Array<{ function: { name: string; description: string } }>
    ).find((t) => t.function.name === "execute_code")!.function.description;
    expect(description).toContain("tool_search/describe/call");
    const result = JSON.parse(lastToolMessage(requests[1]!)) as { status: string; output: string };
    expect(result.status).toBe("success");
    expect(result.output).toBe(
      "crm_archive_shipment True 'terminal' is not a deferred tool: it is in your tool list, so call it directly.\n",
    );
    expect(s.ran).toEqual([
      { name: "crm_archive_shipment", args: { shipment_id: "S-7", reason: "damaged" } },
    ]);
    // The deferred tool ran as the script's own call, under its own name.
    expect(s.events).toContainEqual(
      expect.objectContaining({ type: "inner_tool", parent: "execute_code", name: "crm_archive_shipment" }),
    );
  });
});

describe("the decision, once per session", () => {
  it("auto keeps a few small deferrable tools listed, exactly as with the bridge off", async () => {
    const few = (r: HermesToolRegistry) =>
      r.register({
        name: "mcp_s_echo",
        toolset: "mcp-s",
        schema: {
          description: "Echo.",
          parameters: { type: "object", properties: { text: { type: "string" } } },
        },
        handler: (a) => String(a.text),
      });
    const auto = setup({ crm: false, extra: few });
    const off = setup({ crm: false, extra: few, config: (c) => (c.tools.tool_search.enabled = false) });
    const a = await auto.agent.prepareSession();
    const o = await off.agent.prepareSession();
    expect(JSON.stringify(a.tools)).toBe(JSON.stringify(o.tools));
    expect(a.tools.map((t) => t.function.name)).toContain("mcp_s_echo");
    expect(auto.agent.toolSearch).toMatchObject({ active: false, deferrableTools: 1 });
  });

  it("off lists every tool; on defers even one; a core tool flagged deferrable stays listed", async () => {
    const off = setup({ config: (c) => (c.tools.tool_search.enabled = "off") });
    expect(
      (await off.agent.prepareSession()).tools.filter((t) => t.function.name.startsWith("crm_")),
    ).toHaveLength(300);
    const one = (r: HermesToolRegistry) => {
      r.deregister("web_search");
      r.register({
        name: "web_search",
        toolset: "web",
        deferrable: true,
        schema: { description: "Search.", parameters: { type: "object", properties: {} } },
        handler: () => "",
      });
      r.register({
        name: "crm_ping",
        toolset: "plugin-crm",
        deferrable: true,
        schema: { description: "Ping.", parameters: { type: "object", properties: {} } },
        handler: () => "pong",
      });
    };
    const on = setup({ crm: false, extra: one, config: (c) => (c.tools.tool_search.enabled = true) });
    const names = (await on.agent.prepareSession()).tools.map((t) => t.function.name);
    expect(names).toEqual(expect.arrayContaining(["web_search", ...BRIDGE]));
    expect(names).not.toContain("crm_ping");
  });

  it("tools registered after the first request reach the bridge on reloadTools, not before", async () => {
    const s = setup({ crm: false });
    const before = (await s.agent.prepareSession()).tools;
    registerCrm(s.registry, s.ran);
    expect((await s.agent.prepareSession()).tools).toBe(before);
    const change = await s.agent.reloadTools();
    expect(change).toEqual({ added: BRIDGE, removed: [] });
    expect(s.agent.toolSearch?.active).toBe(true);
  });
});
