/**
 * A server's tools in the registry: `mcp_<server>_<tool>` in toolset `mcp-<server>`, plus the
 * resource and prompt utilities when the server offers them. Two tools whose names sanitize alike
 * (`a.b` and `a_b`, or tools of two servers) both stay: all but one get a mark of their server and
 * own name. Re-syncing after a list change touches only what changed, so an unchanged list never
 * moves the registry's generation (and never costs a session its prompt cache).
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { HermesToolRegistry, ToolContext } from "../tools/context.js";
import type { ToolRegistration } from "../tools/registry.js";
import type { ToolResult } from "../tools/result.js";
import type { McpConnection, ServerTool } from "./connection.js";
import { claimOrder, markedToolName, mcpToolName, mcpToolset, toolAllowed } from "./names.js";
import { contentBlocks, type McpContent, type McpResourceContents, resourceBlocks } from "./results.js";

type Registration = ToolRegistration<ToolContext>;
interface Page<T> {
  key: string;
  items: T[];
  nextCursor?: string | undefined;
}

const text = (value: unknown): ToolResult => ({ content: [{ type: "text", text: JSON.stringify(value) }] });

/** The server's input schema as a function's parameters: always an object schema. */
export function normalizeSchema(schema: Record<string, unknown> | undefined): Record<string, unknown> {
  const { $schema: _draft, type: _type, ...rest } = schema ?? {};
  return { type: "object", ...rest, properties: (rest.properties as Record<string, unknown>) ?? {} };
}

function toolRegistration(
  conn: McpConnection,
  tool: ServerTool,
  name: string,
  toolset: string,
): Registration {
  const server = conn.config.name;
  const description = tool.description?.trim() || `Tool '${tool.name}' of the MCP server '${server}'.`;
  return {
    name,
    toolset,
    schema: { description, parameters: normalizeSchema(tool.inputSchema) },
    handler: (args, ctx) => conn.callTool(tool.name, args, ctx.signal),
    emoji: "🔌",
    parallelSafe: conn.config.parallelSafe,
  };
}

const cursorParam = { cursor: { type: "string", description: "nextCursor of the previous page." } };

function utilityRegistrations(
  conn: McpConnection,
  toolset: string,
  takenBy: (name: string) => string | undefined,
): Registration[] {
  const server = conn.config.name;
  const reg = (
    tool: string,
    description: string,
    parameters: Record<string, unknown>,
    handler: Registration["handler"],
  ): Registration => {
    const base = mcpToolName(server, tool);
    return {
      name: takenBy(base) ? markedToolName(base, server, tool) : base,
      toolset,
      schema: { description, parameters },
      handler,
      emoji: "🔌",
      parallelSafe: true,
    };
  };
  const out: Registration[] = [];
  /** A paged list tool: each page's items cut to what the model needs, and the next cursor. */
  const listing = <T>(
    tool: string,
    description: string,
    method: string,
    page: (c: Client, cursor: { cursor: string } | undefined, o: RequestOptions) => Promise<Page<T>>,
    pick: (item: T) => Record<string, unknown>,
  ): Registration =>
    reg(tool, description, { type: "object", properties: cursorParam }, (args, ctx) =>
      conn.request(
        method,
        async (c, o) => {
          const cursor = typeof args.cursor === "string" && args.cursor ? { cursor: args.cursor } : undefined;
          const r = await page(c, cursor, o);
          return text({ [r.key]: r.items.map(pick), ...(r.nextCursor ? { nextCursor: r.nextCursor } : {}) });
        },
        ctx.signal,
      ),
    );
  if (conn.capabilities.resources && conn.config.resources) {
    out.push(
      listing(
        "list_resources",
        `List the resources (files, documents, data) the MCP server '${server}' offers.`,
        "resources/list",
        async (c, cursor, o) => {
          const r = await c.listResources(cursor, o);
          return { key: "resources", items: r.resources, nextCursor: r.nextCursor };
        },
        ({ uri, name, mimeType, description }) => ({ uri, name, mimeType, description }),
      ),
      reg(
        "read_resource",
        `Read one resource of the MCP server '${server}' by its URI.`,
        {
          type: "object",
          properties: { uri: { type: "string", description: "The resource URI." } },
          required: ["uri"],
        },
        (args, ctx) =>
          conn.request(
            "resources/read",
            async (c, o) => {
              const r = await c.readResource({ uri: String(args.uri) }, o);
              const content = (r.contents as McpResourceContents[]).flatMap(resourceBlocks);
              return { content: content.length ? content : [{ type: "text", text: "(empty resource)" }] };
            },
            ctx.signal,
          ),
      ),
    );
  }
  if (conn.capabilities.prompts && conn.config.prompts) {
    out.push(
      listing(
        "list_prompts",
        `List the prompt templates the MCP server '${server}' offers.`,
        "prompts/list",
        async (c, cursor, o) => {
          const r = await c.listPrompts(cursor, o);
          return { key: "prompts", items: r.prompts, nextCursor: r.nextCursor };
        },
        ({ name, description, arguments: a }) => ({ name, description, arguments: a }),
      ),
      reg(
        "get_prompt",
        `Get one prompt of the MCP server '${server}', filled in with its arguments.`,
        {
          type: "object",
          properties: {
            name: { type: "string", description: "The prompt's name." },
            arguments: {
              type: "object",
              additionalProperties: { type: "string" },
              description: "The prompt's arguments.",
            },
          },
          required: ["name"],
        },
        (args, ctx) =>
          conn.request(
            "prompts/get",
            async (c, o) => {
              const given = (typeof args.arguments === "object" && args.arguments) || {};
              const stringArgs = Object.fromEntries(Object.entries(given).map(([k, v]) => [k, String(v)]));
              const r = await c.getPrompt({ name: String(args.name), arguments: stringArgs }, o);
              const blocks = r.messages.flatMap((m) =>
                contentBlocks(m.content as McpContent).map((b) =>
                  b.type === "text" ? { ...b, text: `${m.role}: ${b.text}` } : b,
                ),
              );
              const head = r.description ? [{ type: "text" as const, text: r.description }] : [];
              return { content: [...head, ...blocks] };
            },
            ctx.signal,
          ),
      ),
    );
  }
  return out;
}

export interface PlanOptions {
  /** The server's toolset (default `mcp-<server>`). */
  toolset?: string;
  /** Who else holds a registry name (another server's tool), or undefined when nobody does. */
  takenBy?: (name: string) => string | undefined;
  /** The names the server's tools had before: a tool keeps its name while nobody else holds it. */
  previous?: ReadonlyMap<string, string>;
}

export interface RegistrationPlan {
  registrations: Registration[];
  /** Registry name of each tool (by the server's own name for it). */
  names: Map<string, string>;
  /** One note per tool that got a marked name, saying why. */
  renamed: string[];
}

/** What the registry should hold for a connection now, and which tools got marked names. */
export function planRegistrations(conn: McpConnection, o: PlanOptions = {}): RegistrationPlan {
  const server = conn.config.name;
  const toolset = o.toolset ?? mcpToolset(server);
  const takenBy = o.takenBy ?? (() => undefined);
  const { include, exclude } = conn.config;
  const allowed = conn.tools.filter((t) => toolAllowed(t.name, include, exclude));
  const groups = new Map<string, string[]>();
  for (const t of allowed) {
    const base = mcpToolName(server, t.name);
    groups.set(base, [...(groups.get(base) ?? []), t.name]);
  }
  const names = new Map<string, string>();
  const renamed: string[] = [];
  const used = new Set<string>();
  for (const [base, members] of groups) {
    const order = claimOrder(members);
    for (const [i, tool] of order.entries()) {
      const holder = takenBy(base);
      // A marked name stays while nobody else holds it: a session's tool list does not shift
      // because another server went away.
      const kept = o.previous?.get(tool);
      const keep = kept !== undefined && kept !== base && !used.has(kept) && !takenBy(kept);
      const name = keep ? kept : i === 0 && !holder ? base : markedToolName(base, server, tool);
      used.add(name);
      names.set(tool, name);
      if (name === base || keep) continue;
      const why = holder ?? `also the name of its tool '${order[0]}'`;
      renamed.push(`tool '${tool}' is registered as '${name}' ('${base}' is ${why})`);
    }
  }
  const tools = allowed.map((t) => toolRegistration(conn, t, names.get(t.name)!, toolset));
  const taken = new Set(tools.map((t) => t.name));
  const utilities = utilityRegistrations(conn, toolset, takenBy).filter((u) => !taken.has(u.name));
  return { registrations: [...tools, ...utilities], names, renamed };
}

const sameSchema = (a: Registration["schema"], b: Registration["schema"]): boolean =>
  a.description === b.description && JSON.stringify(a.parameters) === JSON.stringify(b.parameters);

export interface SyncOutcome {
  /** Every name the server owns in the registry after the sync. */
  names: Set<string>;
  added: string[];
  removed: string[];
  /** One line per tool left out because another toolset owns its name. */
  skipped: string[];
}

/**
 * Makes the registry hold exactly `desired` for this server: stale names go, changed ones are
 * replaced, names owned by another toolset (a built-in, another server) are skipped.
 */
export function syncRegistrations(
  registry: HermesToolRegistry,
  toolset: string,
  previous: ReadonlySet<string>,
  desired: readonly Registration[],
): SyncOutcome {
  const names = new Set<string>();
  const added: string[] = [];
  const removed: string[] = [];
  const skipped: string[] = [];
  const wanted = new Set(desired.map((d) => d.name));
  for (const name of previous) {
    if (wanted.has(name) || registry.get(name)?.toolset !== toolset) continue;
    registry.deregister(name);
    removed.push(name);
  }
  for (const reg of desired) {
    const existing = registry.get(reg.name);
    if (existing && existing.toolset !== toolset) {
      skipped.push(`'${reg.name}' is already a tool of '${existing.toolset}'`);
      continue;
    }
    names.add(reg.name);
    if (existing && sameSchema(existing.schema, reg.schema) && existing.parallelSafe === reg.parallelSafe)
      continue;
    const outcome = registry.register(reg);
    if (!outcome.ok) {
      names.delete(reg.name);
      skipped.push(outcome.reason);
    } else if (!existing) added.push(reg.name);
  }
  return { names, added, removed, skipped };
}

/** Takes every tool of a server out of the registry. */
export function removeRegistrations(
  registry: HermesToolRegistry,
  toolset: string,
  names: Iterable<string>,
): void {
  for (const name of names) if (registry.get(name)?.toolset === toolset) registry.deregister(name);
}
