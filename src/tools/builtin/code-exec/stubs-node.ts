import type { StubSpec } from "./sandbox-tools.js";

/**
 * The RPC client for JavaScript: one connection, requests in flight keyed by id (so Promise.all
 * works), unref'd while idle so a finished script exits. Functions take one object of named
 * arguments, or positional arguments in the tool's parameter order (required ones first).
 */
const RUNTIME = `import { createConnection } from "node:net";

let socket;
let buffered = "";
let lastId = 0;
const pending = new Map();

function fail(err) {
  for (const p of pending.values()) p.reject(new Error(\`hermes_tools: lost the connection to Hermes (\${err.message})\`));
  pending.clear();
  socket = undefined;
}

function connection() {
  if (socket) return socket;
  const s = createConnection(process.env.HERMES_RPC_SOCKET);
  s.setEncoding("utf8");
  s.on("data", (chunk) => {
    buffered += chunk;
    let nl = buffered.indexOf("\\n");
    while (nl !== -1) {
      const reply = JSON.parse(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
      nl = buffered.indexOf("\\n");
      const waiter = pending.get(reply.id);
      if (!waiter) continue;
      pending.delete(reply.id);
      waiter.resolve(reply);
    }
    if (pending.size === 0) s.unref();
  });
  s.on("error", fail);
  s.on("close", () => fail(new Error("connection closed")));
  socket = s;
  return s;
}

const isPlainObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);

function namedArgs(names, values) {
  if (values.length === 1 && isPlainObject(values[0])) return values[0];
  const out = {};
  names.forEach((n, i) => {
    if (values[i] !== undefined && values[i] !== null) out[n] = values[i];
  });
  return out;
}

function call(tool, args) {
  const id = ++lastId;
  const s = connection();
  s.ref();
  return new Promise((resolve, reject) => {
    pending.set(id, {
      reject,
      resolve: (reply) => {
        if ("error" in reply) return resolve({ error: reply.error });
        try {
          resolve(JSON.parse(reply.result));
        } catch {
          resolve(reply.result);
        }
      },
    });
    s.write(\`\${JSON.stringify({ id, tool, args })}\\n\`);
  });
}
`;

function jsFunction(spec: StubSpec): string {
  const names = JSON.stringify(spec.params.map((p) => p.name));
  return `export function ${spec.name}(...values) {\n  return call("${spec.name}", namedArgs(${names}, values));\n}\n`;
}

/** Source of hermes_tools.mjs exposing `specs` as async functions. */
export function nodeStubs(specs: readonly StubSpec[]): string {
  return [
    `// Hermes tools callable from this script (generated for this run).`,
    RUNTIME,
    ...specs.map(jsFunction),
  ].join("\n");
}
