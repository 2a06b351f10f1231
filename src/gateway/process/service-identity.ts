/**
 * How one profile's gateway is named and started as a service: the unit name, the command line
 * and the environment it needs. Shared by the systemd unit and the background fallback.
 */
import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { defaultHermesRoot } from "../../core/home.js";

export interface GatewayIdentity {
  home: string;
  /** The profile's name when home is ~/.hermes/profiles/NAME. */
  profile?: string;
  /** hermes-gateway, hermes-gateway-<profile>, or hermes-gateway-home-<hash> for any other HERMES_HOME. */
  unitName: string;
  /** The command that runs this gateway in the foreground: node, the hermes script, its arguments. */
  command: string[];
  /** HERMES_HOME, when it cannot be told by `-p`. */
  environment: Record<string, string>;
}

/** The `hermes` script this process runs (a global install's symlink resolved). */
export function hermesScript(argv1: string | undefined = process.argv[1]): string {
  if (!argv1) throw new Error("cannot tell where the hermes script is (process.argv[1] is empty)");
  try {
    return realpathSync(argv1);
  } catch {
    return resolve(argv1);
  }
}

export function gatewayIdentity(home: string, script: string = hermesScript()): GatewayIdentity {
  const root = defaultHermesRoot();
  const resolvedHome = resolve(home);
  const profile = dirname(resolvedHome) === join(root, "profiles") ? basename(resolvedHome) : undefined;
  const isDefault = resolvedHome === root;
  const custom = !isDefault && profile === undefined;
  const suffix = profile
    ? `-${profile}`
    : custom
      ? `-home-${createHash("sha256").update(resolvedHome).digest("hex").slice(0, 8)}`
      : "";
  return {
    home: resolvedHome,
    ...(profile ? { profile } : {}),
    unitName: `hermes-gateway${suffix}`,
    command: [process.execPath, script, ...(profile ? ["-p", profile] : []), "gateway", "run"],
    environment: custom ? { HERMES_HOME: resolvedHome } : {},
  };
}
