import { writeFileSync } from "node:fs";
import { DEFAULT_CONFIG, type HermesConfig, loadConfig } from "../../core/config.js";
import { ensureHermesHome, getHermesHome } from "../../core/home.js";
import { openProfileStore } from "../../runtime/state-store.js";
import {
  messageText,
  type SessionRecord,
  type SessionStore,
  StateStoreError,
  type StoredInnerToolCall,
  type StoredMessage,
} from "../../state/store.js";

/**
 * Runs `fn` with the profile's store open; prints a clear message and returns 1 when it cannot be
 * opened, or when a change could not be made because another process kept the write lock.
 */
async function withStore(fn: (store: SessionStore) => number | Promise<number>): Promise<number> {
  const paths = ensureHermesHome(getHermesHome());
  const opened = openProfileStore(paths.stateDb, configOrDefaults(paths.config), paths.home);
  if ("error" in opened) {
    process.stderr.write(`hermes: ${opened.error.message}\n`);
    return 1;
  }
  try {
    return await fn(opened.store);
  } catch (err) {
    if (!(err instanceof StateStoreError)) throw err;
    process.stderr.write(`hermes: ${err.message}\n`);
    return 1;
  } finally {
    await opened.store.close();
  }
}

/** Listing and deleting work with a config that does not load; redaction then stays on (the default). */
function configOrDefaults(path: string): HermesConfig {
  try {
    return loadConfig(path).config;
  } catch {
    return DEFAULT_CONFIG;
  }
}

const when = (ms: number): string => new Date(ms).toISOString().replace("T", " ").slice(0, 19);

function find(store: SessionStore, idOrTitle: string): SessionRecord | undefined {
  const s = store.resolveSession(idOrTitle);
  if (!s) process.stderr.write(`hermes: no session with id or title '${idOrTitle}'\n`);
  return s;
}

export function sessionsList(opts: { limit?: string; source?: string; json?: boolean }): Promise<number> {
  return withStore((store) => {
    const limit = opts.limit ? Number.parseInt(opts.limit, 10) : 50;
    const rows = store.listSessions({ limit, ...(opts.source ? { source: opts.source } : {}) });
    if (opts.json) {
      process.stdout.write(
        `${JSON.stringify(
          rows.map(({ systemPrompt: _s, ...r }) => r),
          null,
          2,
        )}\n`,
      );
      return 0;
    }
    if (rows.length === 0) {
      process.stdout.write("No sessions yet.\n");
      return 0;
    }
    process.stdout.write(
      `${"ID".padEnd(36)}  ${"STARTED (UTC)".padEnd(19)}  ${"SOURCE".padEnd(8)}  MSGS  TITLE\n`,
    );
    for (const s of rows) {
      process.stdout.write(
        `${s.id.padEnd(36)}  ${when(s.startedAt)}  ${s.source.padEnd(8)}  ${String(s.messageCount).padStart(4)}  ${s.title ?? "-"}\n`,
      );
    }
    return 0;
  });
}

/** Inner tool calls grouped by the message they follow. */
function innerCallsAfter(calls: readonly StoredInnerToolCall[]): Map<number, StoredInnerToolCall[]> {
  const by = new Map<number, StoredInnerToolCall[]>();
  for (const c of calls) by.set(c.afterSeq, [...(by.get(c.afterSeq) ?? []), c]);
  return by;
}

function toMarkdown(
  s: SessionRecord,
  messages: StoredMessage[],
  inner: readonly StoredInnerToolCall[],
): string {
  const innerAfter = innerCallsAfter(inner);
  const out = [
    `# ${s.title ?? `Session ${s.id}`}`,
    "",
    `- id: ${s.id}`,
    `- started: ${when(s.startedAt)} UTC`,
  ];
  out.push(`- source: ${s.source}`, `- model: ${s.model ?? "?"}`, "");
  for (const { message: m, seq } of messages) {
    const calls = innerAfter.get(seq) ?? [];
    if (m.role === "tool") {
      out.push(`### tool result${m.name ? ` (${m.name})` : ""}`, "", "```", m.content, "```", "");
      continue;
    }
    out.push(`## ${m.role}`, "");
    const text = messageText(m);
    if (text) out.push(text, "");
    if (m.role === "assistant") {
      for (const tc of m.tool_calls ?? [])
        out.push(`- tool call \`${tc.function.name}\` ${tc.function.arguments}`);
      if (m.tool_calls?.length) out.push("");
    }
    for (const c of calls) {
      const mark = c.isError ? " (error)" : "";
      out.push(`  - ↳ ${c.parentTool} called \`${c.toolName}\` ${JSON.stringify(c.args)}${mark}`);
    }
    if (calls.length > 0) out.push("");
  }
  return out.join("\n");
}

export function sessionsExport(
  idOrTitle: string,
  opts: { format?: string; output?: string; systemPrompt?: boolean },
): Promise<number> {
  return withStore((store) => {
    const s = find(store, idOrTitle);
    if (!s) return 1;
    const messages = store.loadMessages(s.id);
    const inner = store.loadInnerToolCalls(s.id);
    const format = opts.format ?? "jsonl";
    let text: string;
    if (format === "md" || format === "markdown") text = toMarkdown(s, messages, inner);
    else if (format === "jsonl") {
      const { systemPrompt, ...meta } = s;
      const lines = [
        JSON.stringify({ type: "session", ...meta, ...(opts.systemPrompt ? { systemPrompt } : {}) }),
      ];
      const innerAfter = innerCallsAfter(inner);
      for (const m of messages) {
        lines.push(
          JSON.stringify({ type: "message", id: m.id, seq: m.seq, createdAt: m.createdAt, ...m.message }),
        );
        for (const c of innerAfter.get(m.seq) ?? [])
          lines.push(JSON.stringify({ type: "inner_tool_call", ...c }));
      }
      text = `${lines.join("\n")}\n`;
    } else {
      process.stderr.write(`hermes: unknown export format '${format}' (use jsonl or md)\n`);
      return 2;
    }
    if (opts.output) writeFileSync(opts.output, text);
    else process.stdout.write(text);
    return 0;
  });
}

export function sessionsDelete(idOrTitle: string): Promise<number> {
  return withStore(async (store) => {
    const s = find(store, idOrTitle);
    if (!s) return 1;
    await store.deleteSession(s.id);
    process.stdout.write(`Deleted session ${s.id}\n`);
    return 0;
  });
}

export function sessionsRename(idOrTitle: string, title: string): Promise<number> {
  return withStore(async (store) => {
    const s = find(store, idOrTitle);
    if (!s) return 1;
    await store.renameSession(s.id, title.trim());
    process.stdout.write(`Session ${s.id} is now titled "${title.trim()}"\n`);
    return 0;
  });
}

export async function sessionsPrune(opts: { olderThan?: string; source?: string }): Promise<number> {
  const days = Number.parseFloat(opts.olderThan ?? "90");
  if (!Number.isFinite(days) || days < 0) {
    process.stderr.write("hermes: --older-than takes a number of days\n");
    return 2;
  }
  return withStore(async (store) => {
    const n = await store.prune(Date.now() - days * 86_400_000, opts.source ? { source: opts.source } : {});
    process.stdout.write(`Deleted ${n} session${n === 1 ? "" : "s"} older than ${days} days\n`);
    return 0;
  });
}

export function sessionsStats(opts: { json?: boolean }): Promise<number> {
  return withStore((store) => {
    const st = store.stats();
    if (opts.json) {
      process.stdout.write(`${JSON.stringify(st, null, 2)}\n`);
      return 0;
    }
    const sources = Object.entries(st.bySource)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ");
    process.stdout.write(
      [
        `Database:  ${st.path} (${(st.fileBytes / 1024 / 1024).toFixed(2)} MB)`,
        `Sessions:  ${st.sessions}${sources ? ` (${sources})` : ""}`,
        `Messages:  ${st.messages}`,
        `Oldest:    ${st.oldestStartedAt === null ? "-" : `${when(st.oldestStartedAt)} UTC`}`,
        `Newest:    ${st.newestStartedAt === null ? "-" : `${when(st.newestStartedAt)} UTC`}`,
        "",
      ].join("\n"),
    );
    return 0;
  });
}
