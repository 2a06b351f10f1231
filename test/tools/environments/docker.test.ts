import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  createDockerProvider,
  type DockerSettings,
  dockerRunArgs,
  WORKSPACE,
} from "../../../src/tools/environments/docker.js";
import type { EnvironmentProvider } from "../../../src/tools/environments/types.js";
import { skipBecause } from "../../support/skip.js";
import { isAlive } from "../helpers.js";
import { installFakeDocker } from "./backends.js";

/**
 * The docker backend. A real daemon is used when `docker info` works; otherwise those tests are
 * skipped, and the same code runs against a stand-in `docker` script whose containers are folders
 * and whose `exec` runs on this machine (the transport, container lifecycle and remote scripts are
 * the real ones).
 */

const settings = (extra: Partial<DockerSettings> = {}): DockerSettings => ({
  image: "nikolaik/python-nodejs:python3.11-nodejs20",
  cpu: 1,
  memoryMb: 5120,
  volumes: [],
  mountCwd: false,
  hostCwd: "/srv/project",
  ...extra,
});

describe("docker run arguments", () => {
  it("follows the terminal.* settings", () => {
    const args = dockerRunArgs(
      settings({ cpu: 2.5, memoryMb: 1024, volumes: ["/data:/data:ro", "/tmp/x:/x"], mountCwd: true }),
      "hermes-t-abc123",
    );
    expect(args.slice(0, 4)).toEqual(["run", "-d", "--name", "hermes-t-abc123"]);
    expect(args).toContain("--init");
    expect(args.join(" ")).toContain("--cpus 2.5 --memory 1024m");
    expect(args.join(" ")).toContain(
      "-v /data:/data:ro -v /tmp/x:/x -v /srv/project:/workspace -w /workspace",
    );
    expect(args.slice(-3)).toEqual(["nikolaik/python-nodejs:python3.11-nodejs20", "sleep", "infinity"]);
  });

  it("rejects a malformed volume", () => {
    expect(() => dockerRunArgs(settings({ volumes: ["just-a-path"] }), "n")).toThrow(
      /Invalid terminal.docker_volumes entry 'just-a-path'/,
    );
  });
});

describe("docker backend (stand-in docker CLI)", () => {
  let state: string;
  let provider: EnvironmentProvider;
  const make = (extra: Partial<DockerSettings> = {}): EnvironmentProvider =>
    createDockerProvider(settings({ dockerBinary: join(state, "docker"), ...extra }), {
      maxOutputBytes: 2_000,
    });

  beforeEach(async () => {
    state = await realpath(await mkdtemp(join(tmpdir(), "hermes-fake-docker-")));
    await installFakeDocker(state);
    provider = make();
  });
  afterEach(async () => {
    await provider.disposeAll();
    await rm(state, { recursive: true, force: true });
  });

  it("starts one container per task, keeps shell state, and removes containers on dispose", async () => {
    const a = provider.get("task-a");
    const b = provider.get("task-b");
    const probe = await a.probe();
    // The stand-in runs commands on this machine, so the "container" home is this process's $HOME.
    const home = process.env.HOME ?? userInfo().homedir;
    expect(probe).toMatchObject({ user: userInfo().username, home, cwd: home });
    expect(a.backend).toBe("docker");
    const scratch = join(state, "scratch");
    await a.run(`mkdir -p ${scratch} && cd ${scratch} && export ONLY_A=1`, { timeoutMs: 10_000 });
    expect(await a.run('echo "$ONLY_A $PWD"; exit 5', { timeoutMs: 10_000 })).toMatchObject({
      output: `1 ${scratch}\n`,
      exitCode: 5,
    });
    expect((await b.run('echo "[$ONLY_A]"', { timeoutMs: 10_000 })).output).toBe("[]\n");
    const args = (await readFile(join(state, "run-args"), "utf8")).trim().split("\n");
    expect(args).toHaveLength(2);
    const names = args.map((l) => /--name (\S+)/.exec(l)![1]!);
    expect(names[0]).toMatch(/^hermes-task-a-[0-9a-f]{6}$/);
    expect(names.every((n) => existsSync(join(state, n)))).toBe(true);
    await provider.disposeAll();
    expect(names.some((n) => existsSync(join(state, n)))).toBe(false);
  });

  it("kills a command's process group inside the container on timeout", async () => {
    const env = provider.get("t");
    const pidFile = join(state, "pids");
    const r = await env.run(`sleep 300 & echo $! > ${pidFile}; echo $$ >> ${pidFile}; wait`, {
      timeoutMs: 1_000,
    });
    expect(r).toMatchObject({ timedOut: true, exitCode: null });
    const pids = (await readFile(pidFile, "utf8")).trim().split(/\s+/).map(Number);
    await vi.waitFor(() => expect(pids.filter(isAlive)).toEqual([]), { timeout: 15_000, interval: 100 });
  });

  it("does file I/O through docker exec", async () => {
    const env = provider.get("t");
    const file = join(state, "in", "side.txt");
    await env.writeFile(file, "inside\n");
    expect((await env.readFile(file)).toString()).toBe("inside\n");
    expect(await env.stat(file)).toMatchObject({ isFile: true, size: 7 });
    expect(await env.listDir(join(state, "in"))).toEqual(["side.txt"]);
  });

  it("starts in /workspace when the cwd is mounted", async () => {
    await provider.disposeAll();
    provider = make({ mountCwd: true });
    const env = provider.get("t");
    expect(env.getCwd()).toBe(WORKSPACE);
    const r = await env.run("pwd", { timeoutMs: 10_000 });
    // The stand-in has no /workspace; a real container does (see below).
    expect(r.output).toMatch(/\/workspace|no longer exists/);
  });

  it("reports a container that cannot start, with the daemon's words", async () => {
    await provider.disposeAll();
    provider = make({ image: "broken:latest" });
    await expect(provider.get("t").run("true", { timeoutMs: 10_000 })).rejects.toThrow(
      /Cannot start a docker container from broken:latest: .*pull access denied.*terminal\.docker_image/,
    );
  });
});

const info = spawnSync("docker", ["info"], { encoding: "utf8", timeout: 20_000 });
const noDaemon =
  info.error || info.status !== 0
    ? `no usable Docker daemon (docker info: ${(info.error?.message ?? info.stderr ?? "").trim().split("\n").pop()})`
    : undefined;
const realImage = process.env.HERMES_TEST_DOCKER_IMAGE ?? "debian:bookworm-slim";

describe.skipIf(skipBecause("docker backend (real daemon)", noDaemon))(
  `docker backend (real daemon) ${noDaemon ? `(skipped: ${noDaemon})` : ""}`,
  () => {
    it("runs commands in a real container with the workspace mounted", { timeout: 600_000 }, async () => {
      const host = await realpath(await mkdtemp(join(tmpdir(), "hermes-docker-ws-")));
      await writeFile(join(host, "from-host.txt"), "host\n");
      const provider = createDockerProvider(
        settings({ image: realImage, mountCwd: true, hostCwd: host, memoryMb: 512 }),
      );
      try {
        const env = provider.get("real");
        const probe = await env.probe();
        expect(probe.cwd).toBe(WORKSPACE);
        expect(probe.os).toMatch(/^Linux /);
        expect(await env.run("cat from-host.txt; export X=1; cd /tmp", { timeoutMs: 60_000 })).toMatchObject({
          output: "host\n",
          exitCode: 0,
        });
        expect((await env.run('echo "$X $PWD"', { timeoutMs: 60_000 })).output).toBe("1 /tmp\n");
        const r = await env.run("sleep 300", { timeoutMs: 1_000 });
        expect(r.timedOut).toBe(true);
        await vi.waitFor(
          async () =>
            expect(
              (
                await env.run("ps -eo comm 2>/dev/null | grep -c '^sleep$' || true", { timeoutMs: 30_000 })
              ).output.trim(),
            ).toBe("0"),
          { timeout: 20_000, interval: 500 },
        );
      } finally {
        await provider.disposeAll();
        await rm(host, { recursive: true, force: true });
      }
      const left = execFileSync("docker", ["ps", "-aq", "--filter", "label=hermes-agent=1"])
        .toString()
        .trim();
      expect(left).toBe("");
    });
  },
);
