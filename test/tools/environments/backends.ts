import { chmod, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";
import { createDockerProvider, type DockerSettings } from "../../../src/tools/environments/docker.js";
import { createLocalEnvironmentProvider } from "../../../src/tools/environments/local.js";
import type { EnvironmentProvider } from "../../../src/tools/environments/types.js";

/** Backends for environment tests: the local one, and the remote one over a stand-in docker CLI. */

/**
 * A stand-in `docker` CLI for tests without a daemon: containers are folders under `state`, and
 * `exec` runs on this machine, so the transport, the container lifecycle and the remote scripts
 * are the real ones. Every `docker run` appends its arguments to `state/run-args`.
 */
const FAKE_DOCKER = `#!/bin/sh
state=__STATE__
cmd=$1; shift
case "$cmd" in
  run)
    all="$*"
    printf '%s\\n' "$all" >> "$state/run-args"
    name=""
    while [ $# -gt 0 ]; do
      case "$1" in --name) name=$2; shift 2;; *) shift;; esac
    done
    case "$all" in *broken*) echo "docker: Error response from daemon: pull access denied for broken" >&2; exit 125;; esac
    mkdir "$state/$name" && echo 0123456789ab;;
  exec)
    [ "$1" = -i ] && shift
    name=$1; shift
    [ -d "$state/$name" ] || { echo "Error response from daemon: No such container: $name" >&2; exit 1; }
    exec "$@";;
  rm)
    [ "$1" = -f ] && shift
    rm -rf "$state/$1"; echo "$1";;
  *) echo "fake docker: unsupported $cmd" >&2; exit 1;;
esac
`;

/** Writes the stand-in to `state/docker` and returns its path. */
export async function installFakeDocker(state: string): Promise<string> {
  const binary = join(state, "docker");
  await writeFile(binary, FAKE_DOCKER.replace("__STATE__", JSON.stringify(state)));
  await chmod(binary, 0o755);
  return binary;
}

/** Docker settings that use the stand-in installed in `state`. */
export const fakeDockerSettings = (state: string): DockerSettings => ({
  image: "stand-in:latest",
  cpu: 1,
  memoryMb: 512,
  volumes: [],
  mountCwd: false,
  hostCwd: state,
  dockerBinary: join(state, "docker"),
});

/** Backends to run a test against: the local one, and the remote one through the stand-in. */
export const BACKENDS: [string, (root: string) => Promise<EnvironmentProvider>][] = [
  ["local", async (root) => createLocalEnvironmentProvider({ cwd: root, home: root })],
  [
    "docker (stand-in)",
    async (root) => {
      await installFakeDocker(root);
      return createDockerProvider(fakeDockerSettings(root));
    },
  ],
];

/** A fresh temp dir and provider for each test (read them inside the test), disposed after it. */
export function providerPerTest(make: (root: string) => Promise<EnvironmentProvider>): {
  root: string;
  provider: EnvironmentProvider;
} {
  const current = {} as { root: string; provider: EnvironmentProvider };
  beforeEach(async () => {
    current.root = await realpath(await mkdtemp(join(tmpdir(), "hermes-env-test-")));
    current.provider = await make(current.root);
  });
  afterEach(async () => {
    await current.provider.disposeAll();
    await rm(current.root, { recursive: true, force: true });
  });
  return current;
}
