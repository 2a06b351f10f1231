import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_CONFIG, type HermesConfig } from "../../src/core/config-defaults.js";
import { folderSegment } from "../../src/core/home.js";
import { defaultWorkdirRoot, UserScopes } from "../../src/runtime/user-scope.js";
import type { EnvironmentProvider } from "../../src/tools/environments/types.js";
import { tempDir } from "../support/temp.js";

/** The scopes of chat users: which folder, memory and process owner each one gets. */

const noEnvironments = {} as EnvironmentProvider;

function scopes(change: (g: HermesConfig["gateway"], home: string) => void = () => undefined) {
  // HERMES_HOME and the folder beside it that the users' folders go to, both removed afterwards.
  const base = tempDir("hermes-scope-");
  const home = join(base, "home");
  const work = join(base, "work");
  mkdirSync(home);
  mkdirSync(work);
  const config = structuredClone(DEFAULT_CONFIG);
  change(config.gateway, home);
  const made: string[] = [];
  const s = new UserScopes({
    config,
    home,
    cwd: work,
    environments: noEnvironments,
    environmentsIn: (dir) => {
      made.push(dir);
      return { ...noEnvironments };
    },
  });
  return { s, home, work, made };
}

describe("chat users' scopes", () => {
  it("give each user a private folder and memory, and the owner the profile's", () => {
    const { s, home, work } = scopes();
    expect(s.of(undefined)).toEqual({ workdir: work, memoryDir: join(home, "memories") });
    const alice = s.of({ platform: "telegram", userId: "42" });
    expect(alice).toEqual({
      userKey: "telegram:42",
      workdir: join(`${home}-users`, "telegram", "42"),
      memoryDir: join(home, "users", "telegram", "42", "memories"),
    });
    const mode = statSync(alice.workdir).mode & 0o777;
    expect(mode).toBe(0o700);
    // Made once: the same object comes back.
    expect(s.of({ platform: "telegram", userId: "42" })).toBe(alice);
  });

  it("give each user environments of their own, and the owner the runtime's", () => {
    const { s, made } = scopes();
    const alice = s.of({ platform: "telegram", userId: "42" });
    expect(s.environments(s.owner)).toBe(noEnvironments);
    const own = s.environments(alice);
    expect(own).not.toBe(noEnvironments);
    expect(s.environments(alice)).toBe(own);
    expect(made).toEqual([alice.workdir]);
  });

  it("follow gateway.user_workdirs, workdir_root, shared_memory and admin_users", () => {
    const off = scopes((g) => {
      g.user_workdirs = false;
    });
    expect(off.s.of({ platform: "telegram", userId: "42" }).workdir).toBe(off.work);
    expect(off.s.environments(off.s.of({ platform: "telegram", userId: "42" }))).toBe(noEnvironments);

    const rooted = scopes((g) => {
      g.workdir_root = "people";
    });
    expect(rooted.s.of({ platform: "slack", userId: "U1" }).workdir).toBe(
      join(rooted.work, "people", "slack", "U1"),
    );

    const shared = scopes((g) => {
      g.shared_memory = true;
    });
    const u = shared.s.of({ platform: "telegram", userId: "42" });
    expect(u.memoryDir).toBe(join(shared.home, "memories"));
    expect(u.userKey).toBe("telegram:42");

    const admin = scopes((g) => {
      g.admin_users = ["telegram:42"];
    });
    expect(admin.s.of({ platform: "telegram", userId: "42" })).toBe(admin.s.owner);
    expect(admin.s.of({ platform: "discord", userId: "42" }).userKey).toBe("discord:42");
  });

  it("say which folder cannot be made, and refuse a root inside HERMES_HOME", () => {
    const blocked = scopes((g) => {
      g.workdir_root = "blocked";
    });
    writeFileSync(join(blocked.work, "blocked"), "a file in the way");
    expect(() => blocked.s.of({ platform: "telegram", userId: "42" })).toThrow(
      /Cannot create the working folder .*blocked\/telegram\/42.*gateway\.workdir_root/,
    );
    // The approval gate refuses every change in HERMES_HOME: no working folder there.
    const inside = scopes((g, home) => {
      g.workdir_root = join(home, "work");
    });
    expect(() => inside.s.of({ platform: "telegram", userId: "42" })).toThrow(
      /gateway\.workdir_root .* is inside HERMES_HOME/,
    );
  });

  it("put the working folders beside HERMES_HOME by default, never in it", () => {
    const root = join(homedir(), ".hermes");
    expect(defaultWorkdirRoot(root)).toBe(`${root}-users`);
    expect(defaultWorkdirRoot(join(root, "profiles", "alice"))).toBe(
      join(`${root}-users`, "profiles", "alice"),
    );
    expect(defaultWorkdirRoot("/srv/hermes")).toBe("/srv/hermes-users");
  });
});

describe("folder names of user ids", () => {
  it("keep safe ids readable and give every other id a distinct safe name", () => {
    expect(folderSegment("123456789")).toBe("123456789");
    expect(folderSegment("U02AB_c-d.e")).toBe("U02AB_c-d.e");
    const odd = ["@alice", "../etc", "..", ".", "a/b", "a_b/", "a b", "", "x".repeat(80), "é"];
    const names = odd.map(folderSegment);
    for (const n of names) {
      expect(n).toMatch(/^[A-Za-z0-9_-][A-Za-z0-9._-]*$/);
      expect(n.length).toBeLessThanOrEqual(64);
    }
    expect(new Set([...names, "a_b"]).size).toBe(odd.length + 1);
    expect(folderSegment("@alice")).toBe(folderSegment("@alice"));
  });
});
