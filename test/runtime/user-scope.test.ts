import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_CONFIG, type HermesConfig } from "../../src/core/config-defaults.js";
import { folderSegment } from "../../src/core/home.js";
import { UserScopes } from "../../src/runtime/user-scope.js";
import type { EnvironmentProvider } from "../../src/tools/environments/types.js";
import { tempDir } from "../support/temp.js";

/** The scopes of chat users: which folder, memory and process owner each one gets. */

const noEnvironments = {} as EnvironmentProvider;

function scopes(change: (g: HermesConfig["gateway"], home: string) => void = () => undefined) {
  // HERMES_HOME and the front end's folder, both removed afterwards.
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
  it("give each user a private folder and memory under HERMES_HOME, and the owner the profile's", () => {
    const { s, home, work } = scopes();
    expect(s.of(undefined)).toEqual({ workdir: work, memoryDir: join(home, "memories") });
    const alice = s.of({ platform: "telegram", userId: "42" });
    const folder = join(home, "users", "telegram", "42");
    expect(alice).toEqual({
      userKey: "telegram:42",
      workdir: join(folder, "work"),
      memoryDir: join(folder, "memories"),
      own: { work: join(folder, "work"), dir: folder, workRoot: join(home, "users") },
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

  it("say which folder cannot be made", () => {
    const blocked = scopes((g) => {
      g.workdir_root = "blocked";
    });
    writeFileSync(join(blocked.work, "blocked"), "a file in the way");
    expect(() => blocked.s.of({ platform: "telegram", userId: "42" })).toThrow(
      /Cannot create the working folder .*blocked\/telegram\/42.*gateway\.workdir_root/,
    );
  });

  it("take a root of their own in HERMES_HOME, never one among Hermes's files", () => {
    const inside = scopes((g, home) => {
      g.workdir_root = join(home, "workspaces");
    });
    const alice = inside.s.of({ platform: "telegram", userId: "42" });
    expect(alice.workdir).toBe(join(inside.home, "workspaces", "telegram", "42"));
    expect(alice.own?.workRoot).toBe(join(inside.home, "workspaces"));
    // Their memory stays where it always is.
    expect(alice.memoryDir).toBe(join(inside.home, "users", "telegram", "42", "memories"));
    for (const root of ["", "users", "memories", "skills/mine", ".git", "config.yaml"]) {
      const refused = scopes((g, home) => {
        g.workdir_root = join(home, root);
      });
      expect(() => refused.s.of({ platform: "telegram", userId: "42" }), root).toThrow(
        /gateway\.workdir_root .* would put the users' folders among Hermes's own files/,
      );
    }
  });

  it("leave a user without a folder of their own nothing to change in HERMES_HOME", () => {
    const off = scopes((g) => {
      g.user_workdirs = false;
    });
    const u = off.s.of({ platform: "telegram", userId: "42" });
    expect(u.own).toEqual({
      dir: join(off.home, "users", "telegram", "42"),
      workRoot: join(off.home, "users"),
    });
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
