/**
 * `hermes mcp serve`: Hermes as an MCP server over stdio, for other agents and editors. It offers
 * this profile's sessions and memory (read-only) and `run_prompt`, which runs one prompt through a
 * fresh agent with this profile's config, approvals denied as with `hermes -z`. stdout carries the
 * protocol alone; everything else goes to the log.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { loadConfig } from "../../core/config.js";
import { loadDotEnv } from "../../core/env.js";
import { ensureHermesHome, getHermesHome } from "../../core/home.js";
import { VERSION } from "../../core/version.js";
import { createRuntime, type Runtime } from "../../runtime/runtime.js";
import { openProfileStore } from "../../runtime/state-store.js";
import type { SessionStore } from "../../state/store.js";
import { describeFatal } from "../errors.js";
import { createArgumentCheck } from "./mcp-serve-check.js";
import { knowledgeTools, type ServeResult, type ServeTool } from "./mcp-serve-tools.js";

/** One prompt through a fresh agent of this profile: its final answer, or the reason it has none. */
function runPromptTool(runtime: () => Runtime): ServeTool {
  return {
    name: "run_prompt",
    description:
      "Run one prompt through a fresh Hermes agent (this profile's model, tools and memory) and return its final " +
      "answer. Commands that need approval are denied.",
    inputSchema: {
      type: "object",
      properties: { prompt: { type: "string", description: "The task or question." } },
      required: ["prompt"],
    },
    run: async (args, signal): Promise<ServeResult> => {
      const prompt = typeof args.prompt === "string" ? args.prompt.trim() : "";
      if (!prompt) return { text: JSON.stringify({ error: "prompt is empty" }), isError: true };
      let rt: Runtime;
      try {
        rt = runtime();
      } catch (err) {
        return {
          text: JSON.stringify({ error: describeFatal(err).replace(/^hermes: /, "") }),
          isError: true,
        };
      }
      // No approve callback: flagged commands are denied, as in a one-shot run.
      const agent = rt.newAgent(() => {}, { awaitBackground: true, source: "mcp" });
      const stop = (): void => agent.interrupt();
      signal.addEventListener("abort", stop, { once: true });
      try {
        const result = await agent.runConversation(prompt);
        const answer = result.finalText.trim();
        if ((result.status === "completed" || result.status === "budget_exhausted") && answer)
          return { text: answer };
        const why = result.error?.message ?? (result.status === "interrupted" ? "interrupted" : "no answer");
        return { text: JSON.stringify({ error: why, status: result.status }), isError: true };
      } finally {
        signal.removeEventListener("abort", stop);
        await agent.close();
      }
    },
  };
}

export async function runMcpServe(): Promise<number> {
  let paths: ReturnType<typeof ensureHermesHome>;
  let config: ReturnType<typeof loadConfig>["config"];
  try {
    paths = ensureHermesHome(getHermesHome());
    loadDotEnv(paths.env);
    config = loadConfig(paths.config).config;
  } catch (err) {
    process.stderr.write(`${describeFatal(err)}\n`);
    return 1;
  }
  let store: SessionStore | string | undefined;
  const openStore = (): SessionStore | string => {
    if (store === undefined) {
      const opened = openProfileStore(paths.stateDb, config, paths.home);
      store = "store" in opened ? opened.store : opened.error.message;
    }
    return store;
  };
  let runtime: Runtime | undefined;
  // Built on the first run_prompt: listing and reading need no model or provider.
  const getRuntime = (): Runtime => {
    runtime ??= createRuntime({ cwd: process.cwd(), platform: "mcp", version: VERSION });
    return runtime;
  };
  const tools = [
    ...knowledgeTools({ store: openStore, home: paths.home, config }),
    runPromptTool(getRuntime),
  ];
  const byName = new Map(tools.map((t) => [t.name, t]));
  const checkArguments = createArgumentCheck();

  const server = new Server({ name: "hermes-agent", version: VERSION }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map(({ name, description, inputSchema }) => ({
      name,
      description,
      inputSchema: inputSchema as { type: "object" },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const tool = byName.get(req.params.name);
    if (!tool)
      return { content: [{ type: "text", text: `Unknown tool: ${req.params.name}` }], isError: true };
    const args = req.params.arguments ?? {};
    let result: ServeResult;
    try {
      // A call whose arguments break the tool's schema never runs.
      const invalid = await checkArguments(tool, args);
      result = invalid ? { text: invalid, isError: true } : await tool.run(args, extra.signal);
    } catch (err) {
      result = { text: JSON.stringify({ error: (err as Error).message }), isError: true };
    }
    return { content: [{ type: "text", text: result.text }], ...(result.isError ? { isError: true } : {}) };
  });

  let finish: (code: number) => void = () => {};
  const finished = new Promise<number>((resolve) => {
    finish = resolve;
  });
  let closing = false;
  const shutdown = async (code: number): Promise<void> => {
    if (closing) return;
    closing = true;
    await server.close().catch(() => undefined);
    await runtime?.dispose().catch(() => undefined);
    if (typeof store === "object") await store.close();
    finish(code);
  };
  const onSignal = (): void => void shutdown(0);
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  // The client closing our stdin is the normal end of a stdio server.
  process.stdin.once("end", () => void shutdown(0));
  server.onclose = () => void shutdown(0);
  await server.connect(new StdioServerTransport());
  const code = await finished;
  process.off("SIGINT", onSignal);
  process.off("SIGTERM", onSignal);
  return code;
}
