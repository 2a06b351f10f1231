/**
 * The stdio transport of an MCP server, on the SDK's framing. Unlike the SDK's own, the server runs
 * as the leader of its own process group (so `npx` and whatever it starts die together), the group
 * is killed if Hermes exits (also on a crash or a signal that ends in `process.exit`), and its
 * stderr goes to a log file with the last lines kept for error messages.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, mkdirSync, type WriteStream } from "node:fs";
import { dirname } from "node:path";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { McpHost } from "./host.js";

export interface StdioLaunch {
  command: string;
  args: readonly string[];
  env: Record<string, string>;
  cwd: string | undefined;
  /** Where the server's stderr is appended. */
  logFile: string;
  host: McpHost;
}

/** Stderr kept for error messages. */
const TAIL_CHARS = 2000;
/** Between SIGTERM and SIGKILL when closing. */
const KILL_GRACE_MS = 1000;

export class StdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcess | undefined;
  private readonly buffer = new ReadBuffer();
  private log: WriteStream | undefined;
  private tail = "";
  private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;

  constructor(private readonly launch: StdioLaunch) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** How the process ended ("exit code 1", "signal SIGKILL"), once it has. */
  get exitDescription(): string | undefined {
    if (!this.exit) return undefined;
    return this.exit.signal ? `killed by ${this.exit.signal}` : `exit code ${this.exit.code}`;
  }

  /** The last lines the server wrote to stderr. */
  get stderrTail(): string {
    return this.tail.trim();
  }

  start(): Promise<void> {
    const { command, args, env, cwd, host } = this.launch;
    return new Promise((resolve, reject) => {
      const child = spawn(command, [...args], {
        env,
        cwd,
        stdio: ["pipe", "pipe", "pipe"],
        detached: true,
        windowsHide: true,
      });
      this.child = child;
      child.once("error", (err) => {
        reject(err);
        this.onerror?.(err);
      });
      child.once("spawn", () => {
        if (child.pid) host.trackGroup(child.pid);
        resolve();
      });
      child.once("close", (code, signal) => {
        this.exit = { code, signal };
        if (child.pid) {
          // The leader is gone; whatever it started and left behind goes with it.
          host.killGroup(child.pid, "SIGKILL");
          host.untrackGroup(child.pid);
        }
        this.log?.end();
        this.onclose?.();
      });
      child.stdout?.on("data", (chunk: Buffer) => {
        try {
          this.buffer.append(chunk);
        } catch (err) {
          // A message past the buffer's limit: the stream cannot be trusted any more.
          this.onerror?.(err as Error);
          void this.close();
          return;
        }
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = this.buffer.readMessage();
          } catch (err) {
            this.onerror?.(err as Error);
            continue;
          }
          if (message === null) break;
          this.onmessage?.(message);
        }
      });
      child.stderr?.on("data", (chunk: Buffer) => {
        const text = chunk.toString();
        this.tail = (this.tail + text).slice(-TAIL_CHARS);
        this.logStream()?.write(text);
      });
      // A server that exits while a message is being written must not crash Hermes.
      child.stdin?.on("error", (err) => this.onerror?.(err));
      child.stdout?.on("error", (err) => this.onerror?.(err));
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || this.exit) return reject(new Error("the server process is not running"));
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", resolve);
    });
  }

  /** Ends the server: stdin closed, SIGTERM to its group, SIGKILL if anything is left after a grace. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child || this.exit) return;
    const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
    try {
      child.stdin?.end();
    } catch {
      // already closed
    }
    const pid = child.pid;
    if (pid) this.launch.host.killGroup(pid, "SIGTERM");
    const timer = new Promise<"timeout">((resolve) =>
      setTimeout(() => resolve("timeout"), KILL_GRACE_MS).unref(),
    );
    if ((await Promise.race([closed, timer])) === "timeout" && pid) {
      this.launch.host.killGroup(pid, "SIGKILL");
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, KILL_GRACE_MS).unref())]);
    }
  }

  private logStream(): WriteStream | undefined {
    if (this.log) return this.log;
    try {
      mkdirSync(dirname(this.launch.logFile), { recursive: true });
      this.log = createWriteStream(this.launch.logFile, { flags: "a" });
      this.log.on("error", () => undefined);
    } catch {
      return undefined;
    }
    return this.log;
  }
}
