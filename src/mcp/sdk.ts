/**
 * The one door to `@modelcontextprotocol/sdk`: loaded on first use, only when a server is
 * configured or `hermes mcp ...` runs, so start-up without MCP never pays for it.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { PaginatedResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { mark } from "../core/timing.js";
import type { StdioServerTransport } from "./stdio-transport.js";

export interface McpSdk {
  Client: typeof Client;
  StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport;
  SSEClientTransport: typeof SSEClientTransport;
  StdioServerTransport: typeof StdioServerTransport;
  /** A page of a list, its items left unchecked (tool lists are checked tool by tool). */
  PaginatedResultSchema: typeof PaginatedResultSchema;
}

let loading: Promise<McpSdk> | undefined;

export function loadSdk(): Promise<McpSdk> {
  loading ??= Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/client/sse.js"),
    import("./stdio-transport.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]).then(([client, http, sse, stdio, types]) => {
    mark("mcp sdk loaded");
    return {
      Client: client.Client,
      StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
      SSEClientTransport: sse.SSEClientTransport,
      StdioServerTransport: stdio.StdioServerTransport,
      PaginatedResultSchema: types.PaginatedResultSchema,
    };
  });
  return loading;
}
