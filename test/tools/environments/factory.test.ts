import { mkdtemp, realpath, rm } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_CONFIG, type HermesConfig } from "../../../src/core/config-defaults.js";
import { CONFIG_RULES } from "../../../src/core/config-rules.js";
import { createEnvironmentProvider } from "../../../src/tools/environments/factory.js";
import type { EnvironmentProvider } from "../../../src/tools/environments/types.js";

let dir: string;
let provider: EnvironmentProvider | undefined;

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "hermes-factory-")));
});
afterEach(async () => {
  await provider?.disposeAll();
  provider = undefined;
  await rm(dir, { recursive: true, force: true });
});

const config = (edit: (t: HermesConfig["terminal"]) => void): HermesConfig => {
  const c = structuredClone(DEFAULT_CONFIG);
  edit(c.terminal);
  return c;
};

describe("createEnvironmentProvider", () => {
  it("defaults to the local backend in terminal.cwd relative to where Hermes started, with the real home", async () => {
    provider = createEnvironmentProvider(
      config((t) => {
        t.cwd = "sub";
      }),
      { home: join(dir, "hermes-home"), cwd: dir },
    );
    const env = provider.get("t");
    expect(env.backend).toBe("local");
    expect(env.getCwd()).toBe(join(dir, "sub"));
    expect(env.resolvePath("~")).toBe(homedir());
  });

  it("selects ssh and docker by terminal.backend, without connecting", () => {
    provider = createEnvironmentProvider(
      config((t) => {
        t.backend = "ssh";
        t.ssh_host = "build.example";
      }),
      { home: dir, cwd: dir },
    );
    expect(provider.get("t").backend).toBe("ssh");
    expect(provider.get("t").getCwd()).toBe("~");
    const docker = createEnvironmentProvider(
      config((t) => {
        t.backend = "docker";
        t.docker_mount_cwd_to_workspace = true;
      }),
      { home: dir, cwd: dir },
    );
    expect(docker.get("t")).toMatchObject({ backend: "docker" });
    expect(docker.get("t").getCwd()).toBe("/workspace");
  });

  it("names the missing key when ssh has no host", () => {
    expect(() =>
      createEnvironmentProvider(
        config((t) => {
          t.backend = "ssh";
        }),
        { home: dir, cwd: dir },
      ),
    ).toThrow(/terminal\.ssh_host is empty/);
  });

  it("validates the terminal.* keys", () => {
    expect(CONFIG_RULES["terminal.backend"]!("docker")).toBeUndefined();
    expect(CONFIG_RULES["terminal.backend"]!("modal")).toMatch(/local.*ssh.*docker/);
    expect(CONFIG_RULES["terminal.ssh_port"]!(0)).toBeDefined();
    expect(CONFIG_RULES["terminal.container_cpu"]!(0.5)).toBeUndefined();
    expect(CONFIG_RULES["terminal.container_memory"]!(10)).toBeDefined();
  });
});
