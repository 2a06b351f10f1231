/**
 * Pieces of the gateway process in isolation: the connect timeout and retry of a platform, the PID
 * file lock, the status file and the systemd unit text.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { acquireGatewayLock, pidFilePath, readPidRecord } from "../../src/gateway/process/pid-file.js";
import { gatewayIdentity } from "../../src/gateway/process/service-identity.js";
import { formatStatus, readStatusFile } from "../../src/gateway/process/status-file.js";
import { StatusWriter } from "../../src/gateway/process/status-writer.js";
import { SupervisedAdapter } from "../../src/gateway/process/supervised-adapter.js";
import { unitText } from "../../src/gateway/process/systemd.js";
import type { InboundSink, PlatformAdapter } from "../../src/gateway/types.js";
import { tempDir } from "../support/temp.js";

/** An adapter whose start does what the test says: hang, fail, or connect. */
function scriptedAdapter(behaviour: "hang" | "fail" | "ok", events: string[]): PlatformAdapter {
  return {
    name: "chat",
    maxMessageLength: 100,
    minEditIntervalMs: 10,
    start: (_sink: InboundSink) => {
      events.push(`start:${behaviour}`);
      if (behaviour === "hang") return new Promise<void>(() => {});
      if (behaviour === "fail") return Promise.reject(new Error("401 Unauthorized"));
      return Promise.resolve();
    },
    stop: async () => {
      events.push("stop");
    },
    send: async () => ({ messageId: "1" }),
    edit: async () => {},
  };
}

const noLog = () => {};
const sink: InboundSink = async () => ({ status: "accepted" });

describe("a platform that does not connect", () => {
  it("is reported after the connect timeout and retried with a fresh adapter until it connects", async () => {
    const events: string[] = [];
    const plan: Array<"hang" | "fail" | "ok"> = ["fail", "ok"];
    const changes: Array<[boolean, string | undefined]> = [];
    const supervised = new SupervisedAdapter(scriptedAdapter("hang", events), {
      build: async () => scriptedAdapter(plan.shift()!, events),
      connectTimeoutMs: 50,
      retryInitialMs: 20,
      log: noLog,
      onChange: (a) => changes.push([a.connected, a.lastError]),
    });
    await supervised.start(sink); // resolves at the timeout, not connected
    expect(supervised.connected).toBe(false);
    expect(supervised.lastError).toBe("did not connect within 0.05 s");
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        if (supervised.connected) {
          clearInterval(timer);
          resolve();
        }
      }, 5);
    });
    expect(events).toEqual(["start:hang", "stop", "start:fail", "stop", "start:ok"]);
    expect(changes.map((c) => c[0])).toEqual([false, false, true]);
    expect(changes[1]![1]).toBe("401 Unauthorized");
    expect(supervised.failures).toBe(0);
    await supervised.stop();
    expect(supervised.connected).toBe(false);
  });

  it("stops retrying once stopped", async () => {
    const events: string[] = [];
    let builds = 0;
    const supervised = new SupervisedAdapter(scriptedAdapter("fail", events), {
      build: async () => {
        builds++;
        return scriptedAdapter("fail", events);
      },
      connectTimeoutMs: 1000,
      retryInitialMs: 30,
      log: noLog,
    });
    await supervised.start(sink);
    await supervised.stop();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(builds).toBe(0);
  });
});

describe("the gateway lock", () => {
  it("is exclusive, released only by its owner, and taken over from a dead process", () => {
    const home = tempDir("hermes-lock-");
    const first = acquireGatewayLock(home);
    if (!("release" in first)) throw new Error("first lock refused");
    expect(readPidRecord(home)?.pid).toBe(process.pid);

    // The file now names a process that has exited.
    const holder = spawnSync(process.execPath, ["-e", "0"]).pid;
    writeFileSync(pidFilePath(home), JSON.stringify({ pid: holder, started_at: "x", home }));
    first.release(); // not ours any more: left alone
    expect(readPidRecord(home)?.pid).toBe(holder);

    const second = acquireGatewayLock(home);
    if (!("release" in second)) throw new Error("a dead holder's lock was not taken over");
    expect(readPidRecord(home)?.pid).toBe(process.pid);
    second.release();
    expect(readPidRecord(home)).toBeUndefined();
  });
});

describe("the status file", () => {
  it("is written at start, on changes and at stop, and reads back for `gateway status`", () => {
    const home = tempDir("hermes-status-");
    let sessions = 0;
    const writer = new StatusWriter({
      home,
      startedAt: new Date("2030-01-01T00:00:00Z"),
      log: noLog,
      checkMs: 60_000,
      collect: () => ({
        platforms: [{ name: "telegram", connected: true, detail: "as @bot (long polling)" }],
        services: [{ name: "api_server", url: "http://127.0.0.1:8642" }],
        live_sessions: sessions,
        lanes: [{ key: "agent:main:telegram:dm:1", running: sessions > 0, queued: 2 }],
        ledger_pending: 0,
      }),
    });
    writer.start();
    expect(readStatusFile(home)).toMatchObject({ pid: process.pid, state: "starting", live_sessions: 0 });
    sessions = 1;
    writer.poke();
    expect(readStatusFile(home)).toMatchObject({ live_sessions: 1 });
    writer.setState("running");
    const text = formatStatus(readStatusFile(home)!, true);
    expect(text).toContain("telegram: connected as @bot (long polling)");
    expect(text).toContain("api_server: service (url=http://127.0.0.1:8642)");
    expect(text).toContain("Chats busy: 1 running, 2 queued");
    writer.stop();
    expect(readStatusFile(home)).toMatchObject({ state: "stopped", stopped_at: expect.any(String) });
    writeFileSync(join(home, "gateway-status.json"), "{ broken");
    expect(readStatusFile(home)).toBeUndefined();
    expect(readFileSync(join(home, "gateway-status.json"), "utf8")).toBe("{ broken");
  });
});

describe("the systemd unit", () => {
  it("runs the gateway in the foreground, restarts on failure and quotes paths with spaces", () => {
    const identity = gatewayIdentity("/srv/my hermes", "/opt/hermes agent/bin/hermes.js");
    expect(identity.unitName).toMatch(/^hermes-gateway-home-[0-9a-f]{8}$/);
    const text = unitText(identity, { path: "/usr/bin:/bin", stopTimeoutSec: 70 });
    expect(text).toContain(`ExecStart=${process.execPath} "/opt/hermes agent/bin/hermes.js" gateway run\n`);
    expect(text).toContain('Environment="HERMES_HOME=/srv/my hermes"');
    expect(text).toContain("Environment=PATH=/usr/bin:/bin");
    expect(text).toContain("Restart=on-failure");
    expect(text).toContain("TimeoutStopSec=70");
  });
});
