import { createServer, type Socket } from "node:net";

/**
 * The parent's end of the script's tool channel: a Unix domain socket speaking newline-delimited
 * JSON. A request is `{"id": n, "tool": "read_file", "args": {...}}`; its response carries the same
 * id and either `result` (the tool's result string) or `error` (the call was refused). Requests on
 * one connection are served concurrently and answered as they finish, so ids pair them up.
 */

export type RpcReply = { result: string } | { error: string };
export type RpcHandler = (tool: string, args: Record<string, unknown>) => Promise<RpcReply>;

export interface RpcServer {
  /** Stops listening and drops open connections (pending replies are discarded). */
  close(): Promise<void>;
}

function parseRequest(line: string): { id: unknown; tool: string; args: Record<string, unknown> } | string {
  let msg: unknown;
  try {
    msg = JSON.parse(line);
  } catch {
    return "request is not valid JSON";
  }
  if (typeof msg !== "object" || msg === null) return "request must be a JSON object";
  const { id, tool, args } = msg as Record<string, unknown>;
  if (typeof tool !== "string" || tool === "") return "request needs a tool name";
  if (args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args)))
    return "args must be an object of keyword arguments";
  return { id, tool, args: (args as Record<string, unknown> | undefined) ?? {} };
}

function serve(socket: Socket, handler: RpcHandler): void {
  socket.setEncoding("utf8");
  let buffered = "";
  const reply = (id: unknown, body: RpcReply): void => {
    if (!socket.writable) return;
    socket.write(`${JSON.stringify({ id: id ?? null, ...body })}\n`);
  };
  const handleLine = (line: string): void => {
    if (line.trim() === "") return;
    const req = parseRequest(line);
    if (typeof req === "string") {
      const id = /"id"\s*:\s*(\d+)/.exec(line)?.[1];
      reply(id === undefined ? null : Number(id), { error: req });
      return;
    }
    handler(req.tool, req.args).then(
      (body) => reply(req.id, body),
      (err: unknown) => reply(req.id, { error: `RPC failure: ${(err as Error)?.message ?? String(err)}` }),
    );
  };
  socket.on("data", (chunk: string) => {
    buffered += chunk;
    let nl = buffered.indexOf("\n");
    while (nl !== -1) {
      handleLine(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
      nl = buffered.indexOf("\n");
    }
  });
  // A script that exits mid-call resets the connection; nothing to report.
  socket.on("error", () => {});
}

/** Listens on `socketPath` (which must not exist yet). */
export function startRpcServer(socketPath: string, handler: RpcHandler): Promise<RpcServer> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    serve(socket, handler);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => {
      server.off("error", reject);
      resolve({
        close: () =>
          new Promise<void>((done) => {
            for (const s of sockets) s.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}
