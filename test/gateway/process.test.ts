/**
 * The gateway process, end to end: the built `hermes` binary runs `gateway ...` against the fake
 * Bot API (Telegram) and the fake LLM; PID file, lock, status file, drain, service files and
 * `hermes send` are checked on disk and on the fake's side.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cleanEnv, runHermes, type Sandbox, sandbox, startHermes } from "../support/cli.js";
import { openaiConfig, useFakeLlm } from "../support/e2e.js";
import type { FakeLlm } from "../support/fake-llm.js";
import { type FakeTelegram, startFakeTelegram } from "../support/fake-telegram.js";
import { tempDir } from "../support/temp.js";

let llm: FakeLlm;
useFakeLlm((f) => {
  llm = f;
});

let telegram: FakeTelegram;
/** Homes of this test: any gateway left running in one (a detached one too) is killed after it. */
const homes: string[] = [];

beforeEach(async () => {
  telegram = await startFakeTelegram();
});

afterEach(async () => {
  for (const home of homes.splice(0)) {
    const pid = pidIn(home);
    if (pid && alive(pid)) process.kill(pid, "SIGKILL");
  }
  await telegram.close();
});

const pidIn = (home: string): number | undefined => {
  try {
    return (JSON.parse(readFileSync(join(home, "gateway.pid"), "utf8")) as { pid: number }).pid;
  } catch {
    return undefined;
  }
};

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const statusOf = (home: string) =>
  JSON.parse(readFileSync(join(home, "gateway-status.json"), "utf8")) as {
    pid: number;
    state: string;
    platforms: Array<{ name: string; connected: boolean; detail?: string }>;
    live_sessions: number;
    lanes: Array<{ key: string; running: boolean; queued: number }>;
    ledger_pending: number | null;
  };

async function until<T>(what: string, probe: () => T | undefined | false, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let value: T | undefined | false;
    try {
      value = probe();
    } catch {
      value = undefined;
    }
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A home whose config talks to the fake LLM and (with `telegram`) to the fake Bot API. */
function gatewayHome(
  options: { telegram?: boolean; extra?: string } = {},
): Sandbox & { env: NodeJS.ProcessEnv } {
  const platforms = options.telegram
    ? `platforms:\n  telegram:\n    api_root: ${telegram.apiRoot}\n    allow_all_users: true\n`
    : "";
  const box = sandbox(openaiConfig(llm, `${platforms}${options.extra ?? ""}`));
  homes.push(box.home);
  const env = cleanEnv({
    HERMES_HOME: box.home,
    OPENAI_API_KEY: "test-key",
    ...(options.telegram ? { TELEGRAM_BOT_TOKEN: telegram.token } : {}),
  });
  // No user service manager: install and start take the no-systemd paths on every machine.
  delete env.DBUS_SESSION_BUS_ADDRESS;
  delete env.XDG_RUNTIME_DIR;
  return { ...box, env };
}

function runGateway(box: Sandbox & { env: NodeJS.ProcessEnv }, args: string[] = []) {
  return startHermes(["gateway", "run", ...args], { env: box.env, cwd: box.work });
}

describe("hermes gateway run", () => {
  it("exits 1 naming what turns a platform on when none is", async () => {
    const box = gatewayHome();
    const r = await runHermes(["gateway", "run"], { env: box.env, cwd: box.work });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("No gateway platform is on");
    for (const key of [
      "TELEGRAM_BOT_TOKEN",
      "API_SERVER_KEY",
      "platforms.webhook.enabled",
      "platforms.telegram.enabled",
    ]) {
      expect(r.stderr).toContain(key);
    }
    expect(existsSync(join(box.home, "gateway.pid"))).toBe(false);
  });

  it("connects, answers, reports its status, refuses a second gateway, and drains on SIGTERM", async () => {
    const box = gatewayHome({ telegram: true });
    const run = runGateway(box);
    await run.waitForStderr("Gateway running");
    const pid = run.child.pid!;
    expect(pidIn(box.home)).toBe(pid);
    // It replaced itself, same pid, with a Node process under the default heap budget.
    expect(readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")).toContain("--max-old-space-size=1024");
    await until("status running", () => statusOf(box.home).state === "running");
    expect(statusOf(box.home).platforms).toEqual([
      expect.objectContaining({
        name: "telegram",
        connected: true,
        detail: expect.stringContaining("@hermes_test_bot"),
      }),
    ]);

    llm.enqueue({ text: "hello from the agent" });
    telegram.sendUserMessage({ chatId: 501, userId: 501, text: "hi there" });
    await telegram.waitFor(() =>
      telegram.messagesIn(501).find((m) => m.from === "bot" && m.text.includes("hello from the agent")),
    );
    await until("the turn to finish", () => {
      const s = statusOf(box.home);
      return s.live_sessions === 1 && s.ledger_pending === 0 && s.lanes.every((l) => !l.running);
    });

    const status = await runHermes(["gateway", "status"], { env: box.env, cwd: box.work });
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`Gateway running (pid ${pid}`);
    expect(status.stdout).toContain("telegram: connected as @hermes_test_bot");
    expect(status.stdout).toContain("Live sessions: 1");
    expect(status.stdout).toContain("Undelivered messages: 0");
    const json = await runHermes(["gateway", "status", "--json"], { env: box.env, cwd: box.work });
    expect(JSON.parse(json.stdout)).toMatchObject({
      running: true,
      pid,
      status: {
        state: "running",
        live_sessions: 1,
        ledger_pending: 0,
        platforms: [{ name: "telegram", connected: true }],
      },
    });

    const second = await runHermes(["gateway", "run"], { env: box.env, cwd: box.work });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`already running for ${box.home} (pid ${pid}`);
    expect(second.stderr).toContain("--replace");
    expect(pidIn(box.home)).toBe(pid);

    // A turn still running when SIGTERM arrives is finished and delivered before the exit.
    llm.enqueue({ text: "the slow answer", delayMs: 1500 });
    telegram.sendUserMessage({ chatId: 501, userId: 501, text: "take your time" });
    await until("the slow request", () => llm.requests.length >= 2);
    run.child.kill("SIGTERM");
    const done = await run.done;
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/telegram: connected as @hermes_test_bot/);
    expect(telegram.messagesIn(501).some((m) => m.from === "bot" && m.text.includes("the slow answer"))).toBe(
      true,
    );
    expect(existsSync(join(box.home, "gateway.pid"))).toBe(false);
    expect(statusOf(box.home)).toMatchObject({ pid, state: "stopped" });

    const after = await runHermes(["gateway", "status"], { env: box.env, cwd: box.work });
    expect(after.code).toBe(1);
    expect(after.stdout).toContain("Gateway not running");
  });

  it("serves the API server as a service of the gateway when API_SERVER_KEY is set", async () => {
    const box = gatewayHome({ extra: "platforms:\n  api_server:\n    port: 0\n" });
    box.env.API_SERVER_KEY = "a-test-key-of-enough-length";
    const run = runGateway(box);
    await run.waitForStderr("Gateway running");
    await until("the service in the status", () => statusOf(box.home).state === "running");
    const services = (
      JSON.parse(readFileSync(join(box.home, "gateway-status.json"), "utf8")) as {
        services: Array<{ name: string; url?: string }>;
      }
    ).services;
    expect(services).toEqual([
      expect.objectContaining({
        name: "api_server",
        url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+/),
      }),
    ]);
    const health = await fetch(`${services[0]!.url}/health`);
    expect(health.status).toBe(200);
    run.child.kill("SIGTERM");
    const done = await run.done;
    expect(done.code).toBe(0);
    expect(done.stdout).toContain(`api_server: listening on ${services[0]!.url}`);
  });

  it("--replace stops the running gateway and takes over", async () => {
    const box = gatewayHome({ telegram: true });
    const first = runGateway(box);
    await first.waitForStderr("Gateway running");
    const second = runGateway(box, ["--replace"]);
    await second.waitForStderr("Gateway running");
    expect(second.child.pid).not.toBe(first.child.pid);
    expect((await first.done).code).toBe(0);
    expect(pidIn(box.home)).toBe(second.child.pid);
    second.child.kill("SIGTERM");
    expect((await second.done).code).toBe(0);
  });

  it("takes over a PID file left by a dead process or by a pid now used by another program", async () => {
    const box = gatewayHome({ telegram: true });
    const dead = spawnSync(process.execPath, ["-e", ""]).pid;
    for (const stalePid of [dead, process.pid]) {
      writeFileSync(
        join(box.home, "gateway.pid"),
        JSON.stringify({ pid: stalePid, started_at: "2020-01-01T00:00:00.000Z", home: box.home }),
      );
      const run = runGateway(box);
      await run.waitForStderr("Gateway running");
      expect(pidIn(box.home)).toBe(run.child.pid);
      run.child.kill("SIGTERM");
      expect((await run.done).code).toBe(0);
    }
  });
});

describe("hermes gateway start | stop | install | uninstall (no systemd)", () => {
  it("starts a background gateway tracked by the PID file, and stops it", async () => {
    const box = gatewayHome({ telegram: true });
    const start = await runHermes(["gateway", "start"], { env: box.env, cwd: box.work });
    expect(start.stderr).toBe("");
    expect(start.code).toBe(0);
    const pid = Number(/pid (\d+)/.exec(start.stdout)?.[1]);
    expect(pidIn(box.home)).toBe(pid);
    expect(alive(pid)).toBe(true);
    expect(statusOf(box.home)).toMatchObject({ pid, state: "running" });
    // Its output goes to the log.
    expect(readFileSync(join(box.home, "logs", "gateway.log"), "utf8")).toContain(
      "telegram: connected as @hermes_test_bot",
    );

    const again = await runHermes(["gateway", "start"], { env: box.env, cwd: box.work });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`already running (pid ${pid})`);

    const stop = await runHermes(["gateway", "stop"], { env: box.env, cwd: box.work });
    expect(stop.code).toBe(0);
    expect(stop.stdout).toContain(`Gateway stopped (pid ${pid})`);
    expect(existsSync(join(box.home, "gateway.pid"))).toBe(false);
    await until("the process to be gone", () => !alive(pid));

    const stopAgain = await runHermes(["gateway", "stop"], { env: box.env, cwd: box.work });
    expect(stopAgain.code).toBe(0);
    expect(stopAgain.stdout).toContain("No gateway is running");
  });

  it("reports a background gateway that exits at start, with its output", async () => {
    const box = gatewayHome();
    const start = await runHermes(["gateway", "start"], { env: box.env, cwd: box.work });
    expect(start.code).toBe(1);
    expect(start.stderr).toContain("exited at start (code 1)");
    expect(start.stderr).toContain("No gateway platform is on");
  });

  it("writes the systemd user unit and removes it again", async () => {
    const box = gatewayHome();
    const home = tempDir("hermes-user-");
    const xdg = join(home, "xdg");
    const env = { ...box.env, HOME: home, XDG_CONFIG_HOME: xdg };
    const install = await runHermes(["gateway", "install"], { env, cwd: box.work });
    expect(install.code).toBe(0);
    const unitFile = /Wrote (.+\.service)\./.exec(install.stdout)?.[1];
    expect(unitFile).toMatch(new RegExp(`^${xdg}/systemd/user/hermes-gateway-home-[0-9a-f]{8}\\.service$`));
    expect(install.stdout).toContain("systemd is not available");
    expect(install.stdout).toContain("hermes gateway start");
    const unit = readFileSync(unitFile!, "utf8");
    expect(unit).toContain(`ExecStart=${process.execPath} `);
    expect(unit).toMatch(/bin\/hermes\.js gateway run\n/);
    expect(unit).toContain("Restart=on-failure");
    expect(unit).toContain(`Environment=HERMES_HOME=${box.home}`);
    expect(unit).toContain("WantedBy=default.target");

    const uninstall = await runHermes(["gateway", "uninstall"], { env, cwd: box.work });
    expect(uninstall.code).toBe(0);
    expect(uninstall.stdout).toContain(`Removed ${unitFile}`);
    expect(existsSync(unitFile!)).toBe(false);
    const again = await runHermes(["gateway", "uninstall"], { env, cwd: box.work });
    expect(again.stdout).toContain("No gateway unit is installed");
  });

  it("names a profile's unit after the profile and starts it with -p", async () => {
    const box = gatewayHome();
    const home = tempDir("hermes-user-");
    const env: NodeJS.ProcessEnv = { ...box.env, HOME: home, XDG_CONFIG_HOME: "" };
    delete env.HERMES_HOME;
    const install = await runHermes(["-p", "work", "gateway", "install"], { env, cwd: box.work });
    expect(install.code).toBe(0);
    const unitFile = join(home, ".config", "systemd", "user", "hermes-gateway-work.service");
    const unit = readFileSync(unitFile, "utf8");
    expect(unit).toMatch(/bin\/hermes\.js -p work gateway run\n/);
    expect(unit).not.toContain("HERMES_HOME");
    expect((await runHermes(["-p", "work", "gateway", "uninstall"], { env, cwd: box.work })).code).toBe(0);
    expect(existsSync(unitFile)).toBe(false);
  });
});

describe("hermes send", () => {
  it("sends through the platform's adapter, records it in the ledger and prints the message id", async () => {
    const box = gatewayHome({ telegram: true });
    telegram.sendUserMessage({ chatId: 777, userId: 777, text: "let me know when the build is done" });
    const r = await runHermes(["send", "telegram:777", "**Build** finished"], {
      env: box.env,
      cwd: box.work,
    });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const sent = telegram.messagesIn(777).filter((m) => m.from === "bot");
    expect(sent).toHaveLength(1);
    expect(sent[0]!.text).toBe("Build finished");
    expect(r.stdout.trim()).toBe(String(sent[0]!.messageId));
    const db = new DatabaseSync(join(box.home, "state.db"));
    const rows = db
      .prepare("SELECT platform, chat_id, status, platform_message_ids FROM gateway_outbound")
      .all();
    db.close();
    expect(rows).toEqual([
      {
        platform: "telegram",
        chat_id: "777",
        status: "sent",
        platform_message_ids: JSON.stringify([String(sent[0]!.messageId)]),
      },
    ]);
    // A send never starts polling: the running gateway keeps its updates.
    expect(telegram.calls.some((c) => c.method === "getUpdates")).toBe(false);
  });

  it("sends into a forum topic", async () => {
    const box = gatewayHome({ telegram: true });
    telegram.sendUserMessage({
      chatId: -1001234,
      userId: 5,
      text: "hello",
      chatType: "supergroup",
      threadId: 42,
    });
    const r = await runHermes(["send", "telegram:-1001234:42", "to the topic"], {
      env: box.env,
      cwd: box.work,
    });
    expect(r.code).toBe(0);
    const call = telegram.calls.find((c) => c.method === "sendMessage");
    expect(String(call?.params.chat_id)).toBe("-1001234");
    expect(call?.params.message_thread_id).toBe(42);
  });

  it("explains unknown platforms, unconfigured platforms and malformed targets", async () => {
    const box = gatewayHome();
    const send = (target: string) => runHermes(["send", target, "hello"], { env: box.env, cwd: box.work });
    const unknown = await send("irc:1");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Unknown platform 'irc'");
    const unconfigured = await send("telegram:1");
    expect(unconfigured.code).toBe(1);
    expect(unconfigured.stderr).toContain("telegram is not configured");
    const service = await send("api_server:1");
    expect(service.code).toBe(2);
    expect(service.stderr).toContain("not a chat platform");
    const malformed = await send("telegram");
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain("<platform>:<chat_id>[:<thread_id>]");
  });
});
