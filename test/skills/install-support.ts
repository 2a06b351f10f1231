import { existsSync, readdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join, relative } from "node:path";
import { gzipSync } from "node:zlib";
import { ROOT } from "../support/cli.js";

/** Archives, a loopback file server and folder listings for the install tests. */

export interface TarEntry {
  path: string;
  type?: "file" | "dir" | "symlink" | "hardlink" | "fifo";
  content?: string | Buffer;
  linkTarget?: string;
  mode?: number;
}

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, "0")}\0`;
}

function header(name: string, size: number, type: string, linkTarget: string, mode: number): Buffer {
  const h = Buffer.alloc(512);
  h.write(name, 0, 100, "utf8");
  h.write(octal(mode, 8), 100);
  h.write(octal(0, 8), 108);
  h.write(octal(0, 8), 116);
  h.write(octal(size, 12), 124);
  h.write(octal(1_700_000_000, 12), 136);
  h.write("        ", 148);
  h.write(type, 156);
  h.write(linkTarget, 157, 100, "utf8");
  h.write("ustar\0", 257);
  h.write("00", 263);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
  return h;
}

const pad = (data: Buffer): Buffer => Buffer.concat([data, Buffer.alloc((512 - (data.length % 512)) % 512)]);

/** A .tar.gz with the given entries; names over 100 bytes go in a pax header. */
export function makeTarGz(entries: readonly TarEntry[]): Buffer {
  const blocks: Buffer[] = [];
  const types = { file: "0", dir: "5", symlink: "2", hardlink: "1", fifo: "6" } as const;
  for (const e of entries) {
    const data = Buffer.from(e.content ?? "");
    let name = e.path;
    if (Buffer.byteLength(name) > 100) {
      const record = (len: number) => `${len} path=${e.path}\n`;
      let len = record(0).length;
      while (record(len).length !== len) len = record(len).length;
      const pax = Buffer.from(record(len));
      blocks.push(header("PaxHeader", pax.length, "x", "", 0o644), pad(pax));
      name = e.path.slice(-90);
    }
    const type = types[e.type ?? "file"];
    const size = e.type === undefined || e.type === "file" ? data.length : 0;
    blocks.push(header(name, size, type, e.linkTarget ?? "", e.mode ?? (e.type === "dir" ? 0o755 : 0o644)));
    if (size > 0) blocks.push(pad(data));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

export interface FileServer {
  url: string;
  /** Paths requested so far. */
  hits: string[];
  set(path: string, body: Buffer | string): void;
  close(): Promise<void>;
}

/** Serves fixed bodies on 127.0.0.1 (404 for anything else). */
export async function serveFiles(files: Record<string, Buffer | string> = {}): Promise<FileServer> {
  const bodies = new Map(Object.entries(files));
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    hits.push(path);
    const body = bodies.get(path);
    if (body === undefined) {
      res.writeHead(404).end("not found");
      return;
    }
    res.writeHead(200, { "content-type": "application/octet-stream" }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    set: (path, body) => bodies.set(path, body),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Every path under a folder (relative, sorted); [] when it does not exist. */
export function treeOf(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      out.push(relative(dir, p));
      if (e.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out.sort();
}

/** Runs `fn` over `items`, `width` at a time. */
export async function inBatches<T, R>(
  items: readonly T[],
  width: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return out;
}

export const skillMd = (name: string, body: string, extra = ""): string =>
  `---\nname: ${name}\ndescription: ${name} for the install tests.\n${extra}---\n\n${body}\n`;

/** Folders of the bundled skills shipped at the repository root. */
export function bundledSkillDirs(root: string = join(ROOT, "skills")): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (!e.isDirectory()) continue;
      if (existsSync(join(p, "SKILL.md"))) out.push(p);
      else walk(p);
    }
  };
  if (existsSync(root)) walk(root);
  return out.sort();
}
