import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { lockFile } from "../../core/file-lock.js";
import { writeFileAtomic } from "../../core/fs.js";
import type { MemoryOperation, MemoryService, MemoryTarget, MemoryWriteResult } from "../../tools/context.js";
import { scanForInjection } from "../prompt/injection.js";
import type { MemoryProvider } from "./provider.js";

/** The line that separates entries in MEMORY.md and USER.md. */
export const ENTRY_SEPARATOR = "\n§\n";

export interface MemoryStoreOptions {
  /** The memories folder (HERMES_HOME/memories). */
  dir: string;
  memoryEnabled: boolean;
  userEnabled: boolean;
  memoryCharLimit: number;
  userCharLimit: number;
}

const FILES: Record<MemoryTarget, string> = { memory: "MEMORY.md", user: "USER.md" };
const LABELS: Record<MemoryTarget, string> = {
  memory: "MEMORY (your notes from past sessions)",
  user: "USER PROFILE (what you know about the user)",
};

export function parseEntries(text: string): string[] {
  return text
    .split(/\r?\n§\r?\n|^§\r?\n|\r?\n§$/m)
    .map((e) => e.trim())
    .filter((e) => e !== "" && e !== "§");
}

export const joinEntries = (entries: readonly string[]): string => entries.join(ENTRY_SEPARATOR);

class OpError extends Error {}

/** How long a write waits for another process's lock on the file (on timers). */
const LOCK_WAIT_MS = 3000;

/**
 * The built-in memory: two small files of `§`-separated entries. Writes go to disk at once; the
 * system-prompt snapshot is taken by `systemPromptBlock()` and the agent calls it once per session.
 */
export class MemoryStore implements MemoryService, MemoryProvider {
  readonly name = "builtin";
  private readonly opts: MemoryStoreOptions;

  constructor(opts: MemoryStoreOptions) {
    this.opts = opts;
  }

  path(target: MemoryTarget): string {
    return join(this.opts.dir, FILES[target]);
  }

  enabled(target: MemoryTarget): boolean {
    return target === "memory" ? this.opts.memoryEnabled : this.opts.userEnabled;
  }

  limit(target: MemoryTarget): number {
    return target === "memory" ? this.opts.memoryCharLimit : this.opts.userCharLimit;
  }

  read(target: MemoryTarget): string[] {
    const p = this.path(target);
    if (!existsSync(p)) return [];
    return parseEntries(readFileSync(p, "utf8"));
  }

  /**
   * Applies every operation to a copy; the file is written only if all succeed and fit the limit.
   * Holds `<file>.lock` meanwhile, so two Hermes processes sharing a home never lose each other's
   * writes; waiting for it (another process's write) happens on timers, never on the event loop.
   * Rejects with FileLockError when the lock stayed taken for LOCK_WAIT_MS.
   */
  async apply(target: MemoryTarget, operations: readonly MemoryOperation[]): Promise<MemoryWriteResult> {
    if (!this.enabled(target)) {
      return { ok: false, error: `The ${target} store is disabled in config (memory.*_enabled).` };
    }
    if (operations.length === 0) return { ok: false, error: "No operations given." };
    mkdirSync(this.opts.dir, { recursive: true, mode: 0o700 });
    const release = await lockFile(`${this.path(target)}.lock`, { timeoutMs: LOCK_WAIT_MS });
    try {
      return this.applyLocked(target, operations);
    } finally {
      release();
    }
  }

  private applyLocked(target: MemoryTarget, operations: readonly MemoryOperation[]): MemoryWriteResult {
    const before = this.read(target);
    const entries = [...before];
    try {
      operations.forEach((op, i) => {
        applyOne(entries, op, operations.length > 1 ? `operation ${i + 1}: ` : "");
      });
    } catch (err) {
      if (!(err instanceof OpError)) throw err;
      return { ok: false, error: `${err.message} Nothing was changed.`, entries: before };
    }
    const limit = this.limit(target);
    const used = joinEntries(entries).length;
    if (used > limit) {
      return {
        ok: false,
        error:
          `The ${target} store would hold ${used} chars; its limit is ${limit}. Nothing was changed. ` +
          `Consolidate first: merge related entries with replace, shorten wordy ones, and remove ` +
          `entries that are stale or no longer useful, then try again (you can batch these in one call).`,
        entries: before,
        usage: { used: joinEntries(before).length, limit },
      };
    }
    writeFileAtomic(this.path(target), entries.length > 0 ? `${joinEntries(entries)}\n` : "", 0o600);
    return { ok: true, entries, usage: { used, limit } };
  }

  /** The memory layer of the system prompt: both stores with their fill level. */
  systemPromptBlock(): string {
    const blocks: string[] = [];
    for (const target of ["memory", "user"] as const) {
      if (!this.enabled(target)) continue;
      const entries = this.read(target);
      if (entries.length === 0) continue;
      const text = joinEntries(entries);
      const limit = this.limit(target);
      const pct = Math.round((text.length / limit) * 100);
      const rule = "=".repeat(46);
      blocks.push(`${rule}\n${LABELS[target]} [${pct}% - ${text.length}/${limit} chars]\n${rule}\n${text}`);
    }
    return blocks.join("\n\n");
  }
}

/** Memory text enters every future system prompt, so it gets the same injection scan as context files. */
function checkContent(content: string, where: string): void {
  if (/^§$/m.test(content)) {
    throw new OpError(`${where}content may not contain a line holding only '§' (the entry separator).`);
  }
  const reasons = scanForInjection(content);
  if (reasons.length > 0) {
    throw new OpError(
      `${where}content looks like a prompt injection (${reasons.join(", ")}) and was not saved: memory is shown in every future system prompt.`,
    );
  }
}

function applyOne(entries: string[], op: MemoryOperation, where: string): void {
  const action = op.action;
  if (action === "add") {
    const content = (op.content ?? "").trim();
    if (!content) throw new OpError(`${where}add needs non-empty content.`);
    checkContent(content, where);
    if (entries.includes(content)) throw new OpError(`${where}that exact entry already exists.`);
    entries.push(content);
    return;
  }
  if (action !== "replace" && action !== "remove") {
    throw new OpError(`${where}unknown action '${String(action)}' (use add, replace or remove).`);
  }
  const needle = (op.old_text ?? "").trim();
  if (!needle) throw new OpError(`${where}${action} needs old_text (a unique substring of one entry).`);
  const hits = entries.map((e, i) => (e.includes(needle) ? i : -1)).filter((i) => i >= 0);
  if (hits.length === 0) throw new OpError(`${where}no entry contains '${needle}'.`);
  if (hits.length > 1) {
    const shown = hits.map((i) => `"${entries[i]!.slice(0, 80)}"`).join(" and ");
    throw new OpError(
      `${where}old_text '${needle}' matches ${hits.length} entries: ${shown}. Use a longer substring that matches only one.`,
    );
  }
  const idx = hits[0]!;
  if (action === "remove") {
    entries.splice(idx, 1);
    return;
  }
  const content = (op.content ?? "").trim();
  if (!content) throw new OpError(`${where}replace needs non-empty content (use remove to delete).`);
  checkContent(content, where);
  entries[idx] = content;
}
