import type { Runtime } from "../runtime/runtime.js";
import type { SessionRecord } from "../state/store.js";
import type { RunFlags } from "./open-runtime.js";

/**
 * Which stored session `-c` / `-r ID|TITLE` asks for. `{}` for a new session; `{ error }` when the
 * request cannot be met (no store, nothing to continue, unknown id or title).
 */
export function resolveResume(runtime: Runtime, flags: RunFlags): { resume?: SessionRecord; error?: string } {
  if (!flags.continue && flags.resume === undefined) return {};
  const store = runtime.sessions;
  if (!store) return { error: `cannot resume: ${runtime.storeProblem ?? "no session store"}` };
  if (flags.resume !== undefined) {
    const found = store.resolveSession(flags.resume);
    if (!found)
      return { error: `no session with id or title '${flags.resume}' (see 'hermes sessions list')` };
    return { resume: found };
  }
  const latest = store.latestSession({ source: "cli" });
  if (!latest) return { error: "no previous session to continue (see 'hermes sessions list')" };
  return { resume: latest };
}

/** Tells the user on stderr which session is being resumed. */
export function announceResume(s: SessionRecord): void {
  const title = s.title ? ` "${s.title}"` : "";
  process.stderr.write(`Resuming session ${s.id}${title} (${s.messageCount} messages)\n`);
}
