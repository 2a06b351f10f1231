import { describe, expect, it } from "vitest";
import { messagesOf } from "../support/e2e.js";
import type { RecordedRequest } from "../support/fake-llm.js";
import { useRuntime } from "./support.js";

const h = useRuntime();

const toolsOf = (req: RecordedRequest | undefined): string[] =>
  ((req?.body as { tools?: Array<{ function: { name: string } }> } | undefined)?.tools ?? []).map(
    (x) => x.function.name,
  );

describe("tools registered after start-up", () => {
  it("reach the next session, and the current one only after reloadTools()", async () => {
    const t = h.start("toolsets: [file, mcp-late]\n");
    h.fake.setResponder(() => ({ text: "ok" }));
    const { runtime } = t;
    expect(runtime.unknownToolsets).toEqual(["mcp-late"]);
    const current = runtime.newAgent(t.listener("current"));
    await current.runConversation("first");
    expect(toolsOf(h.fake.requests.at(-1))).not.toContain("mcp_late_lookup");

    // An MCP server that connected after start-up registers its tool.
    runtime.registry.register({
      name: "mcp_late_lookup",
      toolset: "mcp-late",
      schema: { description: "Looks things up.", parameters: { type: "object", properties: {} } },
      handler: () => "{}",
    });
    expect(runtime.toolNames.has("mcp_late_lookup")).toBe(true);
    await current.runConversation("second");
    const cached = toolsOf(h.fake.requests.at(-1));
    expect(cached).not.toContain("mcp_late_lookup");

    const next = runtime.newAgent(t.listener("next"));
    await next.runConversation("hello");
    expect(toolsOf(h.fake.requests.at(-1))).toEqual([...cached, "mcp_late_lookup"].sort());

    expect(await current.reloadTools()).toEqual({ added: ["mcp_late_lookup"], removed: [] });
    await current.runConversation("third");
    expect(toolsOf(h.fake.requests.at(-1))).toContain("mcp_late_lookup");
    // The system prompt stays as built: only the tool list changed.
    const currentRequests = h.fake.requests.filter((r) => JSON.stringify(r.body).includes('"first"'));
    expect(messagesOf(currentRequests.at(-1)!)[0]).toEqual(messagesOf(currentRequests[0]!)[0]);
  });
});
