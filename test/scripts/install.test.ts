import { execFileSync, spawnSync } from "node:child_process";
import {
  appendFileSync,
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skipBecause } from "../support/skip.js";
import { tempDir } from "../support/temp.js";

/**
 * scripts/install.sh as a newcomer meets it: user A (not root) installs a checkout into a prefix, with
 * the machine's old Node first on PATH; user B runs the installed `hermes`. The checkout is a small
 * project with this repository's bin/ and scripts/ and a build that logs each run, so the test sees
 * what the install did without the real build's minutes.
 */

const REPO = join(import.meta.dirname, "..", "..");
const PATH = "/usr/bin:/bin";

const why =
  process.getuid?.() !== 0
    ? "needs root to create the two users it installs and runs as (CI runs as root)"
    : !existsSync("/usr/sbin/useradd")
      ? "useradd is missing"
      : undefined;

interface User {
  name: string;
  uid: number;
  gid: number;
  home: string;
}

let base: string;
let checkout: string;
let prefix: string;
let cache: string;
let a: User;
let b: User;
const created: string[] = [];

function makeUser(tag: string): User {
  const name = `hermes-${tag}-${process.pid}`;
  const home = join(base, `home-${tag}`);
  execFileSync("useradd", ["-M", "-d", home, "-s", "/bin/sh", name]);
  created.push(name);
  const id = (flag: string) => Number(execFileSync("id", [flag, name], { encoding: "utf8" }).trim());
  const user = { name, uid: id("-u"), gid: id("-g"), home };
  mkdirSync(home);
  execFileSync("chown", [`${user.uid}:${user.gid}`, home]);
  return user;
}

function runAs(user: User, command: string, args: string[], env: Record<string, string> = {}) {
  return spawnSync(command, args, {
    cwd: user === a ? checkout : user.home,
    uid: user.uid,
    gid: user.gid,
    encoding: "utf8",
    input: "",
    env: {
      HOME: user.home,
      TMPDIR: user.home,
      PATH,
      SHELL: "/bin/bash",
      LANG: "C.UTF-8",
      NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS ?? "",
      ...env,
    },
  });
}

/** Runs the install as A; npm is offline, so fetching Node instead of using the cache fails the run. */
function install(env: Record<string, string> = {}) {
  const r = runAs(a, "bash", ["scripts/install.sh"], {
    HERMES_PREFIX: prefix,
    HERMES_NODE_CACHE: cache,
    npm_config_offline: "true",
    ...env,
  });
  expect(r.status, r.stderr).toBe(0);
  expect(r.stderr).not.toMatch(/npm (warn|error)/);
  return r.stderr;
}

const events = (): string[] => readFileSync(join(checkout, "events.log"), "utf8").split("\n").filter(Boolean);

/** A project with this repository's bin/ and scripts/, no dependencies, and a build that logs. */
function writeCheckout(): void {
  mkdirSync(join(checkout, "tools"), { recursive: true });
  mkdirSync(join(checkout, "src"));
  cpSync(join(REPO, "bin", "hermes.js"), join(checkout, "bin", "hermes.js"));
  for (const f of ["ensure-node.sh", "deps.sh", "install.sh"]) {
    cpSync(join(REPO, "scripts", f), join(checkout, "scripts", f));
  }
  const pkg = { name: "hermes-fixture", version: "7.7.7" };
  writeFileSync(
    join(checkout, "package.json"),
    JSON.stringify({
      ...pkg,
      type: "module",
      scripts: {
        build: "node tools/build.mjs",
        prepare: "npm run build",
        postinstall: "node tools/log.mjs deps",
      },
    }),
  );
  writeFileSync(
    join(checkout, "package-lock.json"),
    `${JSON.stringify({ ...pkg, lockfileVersion: 3, requires: true, packages: { "": pkg } }, null, 2)}\n`,
  );
  writeFileSync(join(checkout, "src", "main.ts"), "export {};\n");
  writeFileSync(
    join(checkout, "tools", "log.mjs"),
    'import { appendFileSync } from "node:fs";\nappendFileSync("events.log", process.argv[2] + "\\n");\n',
  );
  const main =
    'export async function main(args) {\n  process.stdout.write("main " + args.join(" ") + " on " + process.version + "\\n");\n  return 0;\n}\n';
  writeFileSync(
    join(checkout, "tools", "build.mjs"),
    [
      'import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";',
      'mkdirSync("dist/bundle", { recursive: true });',
      `writeFileSync("dist/bundle/hermes.js", ${JSON.stringify(main)});`,
      'appendFileSync("events.log", "build\\n");',
      "",
    ].join("\n"),
  );
}

/** The shared Node 24 cache: the package this test runs on when it is one, else fetched once. */
function fillCache(): void {
  const own = dirname(dirname(realpathSync(process.execPath)));
  const name = existsSync(join(own, "package.json"))
    ? (JSON.parse(readFileSync(join(own, "package.json"), "utf8")) as { name?: string }).name
    : undefined;
  if (name?.startsWith("node-linux-")) {
    const dest = join(cache, "node_modules", basename(own));
    mkdirSync(dirname(dest), { recursive: true });
    // Hard links when the file system allows: the same bytes without copying 190 MB.
    const linked = spawnSync("cp", ["-al", own, dest]);
    if (linked.status !== 0) cpSync(own, dest, { recursive: true });
  } else {
    execFileSync("bash", ["-c", "source scripts/ensure-node.sh >/dev/null 2>&1; node24_package"], {
      cwd: REPO,
      env: { ...process.env, HERMES_NODE_CACHE: cache },
    });
  }
  execFileSync("chmod", ["-R", "a+rX", cache]);
}

describe.skipIf(skipBecause("scripts/install.sh for two users", why))("scripts/install.sh", () => {
  beforeAll(() => {
    base = realpathSync(tempDir("hermes-install-"));
    chmodSync(base, 0o755);
    checkout = join(base, "checkout");
    prefix = join(base, "prefix");
    cache = join(base, "node-cache");
    a = makeUser("ia");
    b = makeUser("ib");
    mkdirSync(join(checkout, "bin"), { recursive: true });
    mkdirSync(join(checkout, "scripts"));
    mkdirSync(prefix);
    writeCheckout();
    execFileSync("chown", ["-R", `${a.uid}:${a.gid}`, checkout, prefix]);
    fillCache();
  });
  afterAll(() => {
    for (const name of created) spawnSync("userdel", [name]);
  });

  it("installs as one user for another, idempotently, without fetching Node or building twice", () => {
    const first = install();
    expect(events()).toEqual(["deps", "build"]);
    expect(first).toContain(`installed ${prefix}/bin/hermes: hermes 7.7.7 on Node v24`);
    expect(first).toContain(`echo 'export PATH="${prefix}/bin:$PATH"' >> ${a.home}/.bashrc`);

    const launcher = readFileSync(join(prefix, "bin", "hermes"), "utf8");
    expect(readFileSync(join(checkout, "hermes"), "utf8")).toBe(launcher);
    const node = /^exec '([^']+)' '([^']+)' "\$@"$/m.exec(launcher);
    expect(node?.[2]).toBe(join(checkout, "bin", "hermes.js"));
    // The machine's Node when it is 24+ and installed for all, else a copy in the prefix: never one
    // in a home or a cache.
    expect([join(prefix, "lib", "hermes-node", "bin", "node"), "/usr/bin/node"]).toContain(node?.[1]);

    // B has the machine's old node first on PATH and never ran an install.
    const version = runAs(b, join(prefix, "bin", "hermes"), ["--version"]);
    expect(version.stderr).toBe("");
    expect(version.stdout).toBe("7.7.7\n");
    const run = runAs(b, join(checkout, "hermes"), ["hello"]);
    expect(run.stdout).toMatch(/^main hello on v2[4-9]\./);
    expect(run.status).toBe(0);

    const again = install();
    expect(again).toContain("dependencies: up to date with package-lock.json");
    expect(again).toContain("build: up to date");
    expect(again).not.toContain("copying Node");
    expect(events()).toEqual(["deps", "build"]);

    // An edit to src/ after the last build (dated back rather than into the future).
    const before = (Date.now() - 10_000) / 1000;
    utimesSync(join(checkout, "dist", "bundle", "hermes.js"), before, before);
    expect(install()).toContain("build: npm run build");
    expect(events()).toEqual(["deps", "build", "build"]);

    appendFileSync(join(checkout, "package-lock.json"), "\n");
    const binDir = join(prefix, "elsewhere");
    const moved = install({ HERMES_BIN_DIR: binDir });
    expect(moved).toContain("dependencies: npm ci");
    expect(events()).toEqual(["deps", "build", "build", "deps", "build"]);
    expect(runAs(b, join(binDir, "hermes"), ["--version"]).stdout).toBe("7.7.7\n");
  });
});
