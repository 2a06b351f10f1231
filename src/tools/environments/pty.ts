import type { IPty } from "@lydell/node-pty";

/**
 * Pseudo-terminals through `@lydell/node-pty` (an optional dependency with prebuilt binaries),
 * loaded on first use only: the native addon costs startup time and may be missing entirely.
 */

export const PTY_COLS = 120;
export const PTY_ROWS = 40;

export type { IPty };

export interface PtySpawnOptions {
  cwd: string;
  env: Record<string, string>;
}

export type PtySpawn = (file: string, args: string[], options: PtySpawnOptions) => IPty;

/** Thrown when `pty: true` cannot be honoured; the message says why and what to do instead. */
export class PtyUnavailableError extends Error {
  constructor(reason: string) {
    super(
      `PTY mode is unavailable: ${reason}. Run the command without pty, using non-interactive flags ` +
        "(e.g. -y, --yes, --batch), or pipe the answers in (printf 'y\\n' | cmd).",
    );
    this.name = "PtyUnavailableError";
  }
}

let loading: Promise<PtySpawn | PtyUnavailableError> | undefined;

async function load(): Promise<PtySpawn | PtyUnavailableError> {
  if (process.platform === "win32") return new PtyUnavailableError("not supported on Windows in this build");
  try {
    // A CommonJS addon: the named export is there on Node 24, the default export elsewhere.
    const mod: { spawn?: typeof import("@lydell/node-pty").spawn; default?: { spawn?: unknown } } =
      await import("@lydell/node-pty");
    const spawn = mod.spawn ?? (mod.default?.spawn as typeof mod.spawn);
    if (typeof spawn !== "function") return new PtyUnavailableError("@lydell/node-pty has no spawn()");
    return (file, args, options) =>
      spawn(file, args, {
        name: "xterm-256color",
        cols: PTY_COLS,
        rows: PTY_ROWS,
        cwd: options.cwd,
        env: options.env,
        encoding: "utf8",
      });
  } catch (err) {
    const message = (err as Error).message.split("\n")[0] ?? String(err);
    return new PtyUnavailableError(
      `the optional package @lydell/node-pty could not be loaded (${message}); reinstall with ` +
        "optional dependencies (npm install --include=optional)",
    );
  }
}

/** The PTY spawner, or the reason there is none. Loads the addon once per process. */
export function loadPty(): Promise<PtySpawn | PtyUnavailableError> {
  loading ??= load();
  return loading;
}
