import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { send } from "../../src/llm/http.js";

interface Seen {
  method: string;
  url: string;
  auth: string | undefined;
  body: string;
  socket: Socket;
}

/** A server answering with `handle`, recording each request and the socket it came on. */
async function serve(handle: (req: IncomingMessage, res: ServerResponse, seen: Seen) => void) {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => {
      body += d;
    });
    req.on("end", () => {
      const s = {
        method: req.method ?? "",
        url: req.url ?? "",
        auth: req.headers.authorization,
        body,
        socket: req.socket,
      };
      seen.push(s);
      handle(req, res, s);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { url, seen, close };
}

describe("the provider HTTP client", () => {
  let other: Awaited<ReturnType<typeof serve>>;
  let main: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    other = await serve((_req, res, s) => res.end(`other saw ${s.auth ?? "no key"}`));
    main = await serve((req, res) => {
      if (req.url === "/moved") res.writeHead(307, { location: "/v1/here" }).end();
      else if (req.url === "/away") res.writeHead(308, { location: `${other.url}/there` }).end();
      else if (req.url === "/gone") res.writeHead(301, { location: "/v1/here" }).end();
      else res.end(`${req.method} ${req.url}`);
    });
  });
  afterAll(async () => {
    await main.close();
    await other.close();
  });

  const post = (url: string, signal?: AbortSignal) =>
    send(url, {
      method: "POST",
      headers: { authorization: "Bearer k" },
      body: '{"a":1}',
      ...(signal ? { signal } : {}),
    });

  it("follows 307 and 308 with the same method and body", async () => {
    const res = await post(`${main.url}/moved`);
    expect(await res.text()).toBe("POST /v1/here");
    expect(main.seen.at(-1)).toMatchObject({ method: "POST", body: '{"a":1}', auth: "Bearer k" });
  });

  it("drops the key when a redirect leaves the origin", async () => {
    const res = await post(`${main.url}/away`);
    expect(await res.text()).toBe("other saw no key");
    expect(other.seen.at(-1)).toMatchObject({ method: "POST", body: '{"a":1}' });
  });

  it("returns other redirects as they are", async () => {
    const res = await post(`${main.url}/gone`);
    expect(res.status).toBe(301);
    expect(res.headers.get("location")).toBe("/v1/here");
    res.discard();
  });

  it("reuses the connection after a complete response, even when the caller aborts afterwards", async () => {
    const controller = new AbortController();
    const first = await post(`${main.url}/a`, controller.signal);
    expect(await first.text()).toBe("POST /a");
    controller.abort();
    const second = await post(`${main.url}/b`);
    expect(await second.text()).toBe("POST /b");
    const [a, b] = main.seen.slice(-2);
    expect(b!.socket).toBe(a!.socket);
  });

  it("keeps the connection when the caller stops reading and aborts once the whole answer is in", async () => {
    const controller = new AbortController();
    const first = await post(`${main.url}/c`, controller.signal);
    for await (const piece of first.body) {
      expect(piece).toBe("POST /c");
      // As a stream that ends at [DONE]: no more reading, then the call's guard aborts.
      break;
    }
    controller.abort();
    first.discard();
    // The drained response frees its socket on a later tick; the next model call comes much later.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = await post(`${main.url}/d`);
    expect(await second.text()).toBe("POST /d");
    const [c, d] = main.seen.slice(-2);
    expect(d!.socket).toBe(c!.socket);
  });

  it("an abort before the answer rejects with the signal's reason", async () => {
    const hang = await serve(() => undefined);
    try {
      const controller = new AbortController();
      const pending = post(hang.url, controller.signal);
      setTimeout(() => controller.abort(new Error("stop now")), 30);
      await expect(pending).rejects.toThrow("stop now");
    } finally {
      await hang.close();
    }
  });

  it("an abort in the middle of a body ends it with the reason", async () => {
    const slow = await serve((_req, res) => {
      res.write("part one;");
    });
    try {
      const controller = new AbortController();
      const res = await post(slow.url, controller.signal);
      const pieces: string[] = [];
      const reading = (async () => {
        for await (const piece of res.body) {
          pieces.push(piece);
          controller.abort(new Error("enough"));
        }
      })();
      await expect(reading).rejects.toThrow("enough");
      expect(pieces).toEqual(["part one;"]);
    } finally {
      await slow.close();
    }
  });

  it("headers read like fetch's", async () => {
    const h = await serve((_req, res) => {
      res.setHeader("Retry-After", "3");
      res.setHeader("X-Many", ["a", "b"]);
      res.end();
    });
    try {
      const res = await post(h.url);
      expect(res.headers.get("retry-after")).toBe("3");
      expect(res.headers.get("RETRY-AFTER")).toBe("3");
      expect(res.headers.get("x-many")).toBe("a, b");
      expect(res.headers.get("x-none")).toBeNull();
      expect(Object.fromEntries(res.headers)).toMatchObject({ "retry-after": "3" });
      res.discard();
    } finally {
      await h.close();
    }
  });
});
