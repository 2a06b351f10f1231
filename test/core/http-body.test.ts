import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type BodyError, type ReadBodyOptions, readJsonObject } from "../../src/core/http-body.js";

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A loopback server answering each request with what the body reader made of it. */
async function serve(options: ReadBodyOptions): Promise<string> {
  server = createServer((req: IncomingMessage, res) => {
    readJsonObject(req, options).then(
      ({ value }) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(value));
      },
      (err: unknown) => {
        const e = err as BodyError;
        res.writeHead(e.status ?? 500, e.closesConnection ? { connection: "close" } : {});
        res.end(`${e.problem}: ${e.message}`);
      },
    );
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const post = (url: string, body: string, type = "application/json"): Promise<Response> =>
  fetch(url, { method: "POST", headers: { "content-type": type }, body });

describe("the shared HTTP body reader", () => {
  it("reads a JSON object", async () => {
    const url = await serve({ maxBytes: 1024, contentTypes: ["application/json"] });
    const res = await post(url, '{"a": [1, 2], "b": "x"}');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ a: [1, 2], b: "x" });
  });

  it("refuses a declared length over the limit with 413 before reading it", async () => {
    const url = await serve({ maxBytes: 100 });
    const res = await post(url, JSON.stringify({ text: "x".repeat(500) }));
    expect(res.status).toBe(413);
    expect(await res.text()).toMatch(/^too_large: The request body is larger than 1 KB/);
  });

  it("refuses a chunked body once it passes the limit", async () => {
    const url = await serve({ maxBytes: 100 });
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 10; i++) controller.enqueue(new TextEncoder().encode("x".repeat(50)));
        controller.close();
      },
    });
    const res = await fetch(url, { method: "POST", body: stream, duplex: "half" } as RequestInit);
    expect(res.status).toBe(413);
  });

  it("answers 408 to a body that trickles in past the deadline", async () => {
    const url = new URL(await serve({ maxBytes: 1024, timeoutMs: 200 }));
    const socket = connect(Number(url.port), url.hostname);
    // Declares 50 bytes, sends 10, then nothing.
    socket.write(
      "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n" +
        '{"a": "xxx',
    );
    const answer = await new Promise<string>((resolve) => {
      let text = "";
      socket.on("data", (d) => {
        text += d.toString();
      });
      socket.on("close", () => resolve(text));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(answer).toContain("did not arrive within");
  });

  it("refuses a body declared as another content type with 415; a missing type is read", async () => {
    const url = await serve({ maxBytes: 1024, contentTypes: ["application/json"] });
    const form = await post(url, "a=1", "application/x-www-form-urlencoded");
    expect(form.status).toBe(415);
    expect(await form.text()).toMatch(/must be application\/json, not application\/x-www-form-urlencoded/);
    const vendor = await post(url, '{"ok": true}', "application/vnd.example+json; charset=utf-8");
    expect(vendor.status).toBe(200);
    const untyped = await fetch(url, { method: "POST", body: new Blob(['{"ok": 1}']) });
    expect(untyped.status).toBe(200);
  });

  it("refuses empty bodies, invalid JSON and JSON that is not an object with 400", async () => {
    const url = await serve({ maxBytes: 1024 * 1024 });
    for (const [body, problem] of [
      ["  ", "empty"],
      ["{nope", "invalid_json"],
      ["[1, 2]", "not_object"],
      [`{"big": [${'"x",'.repeat(30_000)}]}`, "invalid_json"],
    ] as const) {
      const res = await post(url, body);
      expect(res.status).toBe(400);
      expect(await res.text()).toMatch(new RegExp(`^${problem}:`));
    }
  });
});
