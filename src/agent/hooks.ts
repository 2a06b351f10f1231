/**
 * The hook bus: named points of the agent's work (a tool call, a model call, a session's start and
 * end) where plugins and shell commands watch or steer. The agent fires them; the runtime fills the
 * bus with handlers (plugin functions, shell commands) without the agent knowing either kind. A
 * handler that throws, runs past its time limit or answers something unusable is reported with its
 * label and skipped: a hook never breaks a turn. With nothing registered for a hook, `has()` is
 * false and call sites skip it entirely (no payload built, nothing awaited).
 */
import { HOOK_NAMES, type HookName } from "../core/config-defaults.js";
import { type FaultSource, runAsSource } from "../core/fault-source.js";
import { isRecord } from "../core/is-record.js";

export { HOOK_NAMES, type HookName };

/** What a hook receives: plain JSON-safe data (the same fields a shell hook gets in its JSON). */
export type HookPayload = Record<string, unknown>;

/**
 * A handler's answer is read per hook (see `HookBus`); anything else is ignored. `signal` aborts
 * when its time is up.
 */
export type HookHandler = (payload: HookPayload, signal: AbortSignal) => unknown;

export interface HookRegistration {
  name: HookName;
  /** Who this is in reports and logs: `plugin:<name>` or the shell command. */
  label: string;
  handler: HookHandler;
  /** Overrides the bus's time limit. */
  timeoutMs?: number;
  /** Tool hooks only: the tools it is for (default all). */
  matches?: (toolName: string) => boolean;
}

/**
 * Handlers that exist only once something loads (a plugin's entry module): the hook counts as
 * registered at once, and `load` runs when it first fires. A rejection is reported and the
 * registration dropped; a load still running past the time limit is waited for at the next firing.
 */
export interface LazyHookRegistration {
  name: HookName;
  label: string;
  load: () => Promise<HookHandler[]>;
}

type Entry = HookRegistration | LazyHookRegistration;

const isLazy = (e: Entry): e is LazyHookRegistration => "load" in e;

/** The source a handler's code runs as: its plugin, or the shell hook's command. */
const sourceOf = (label: string): FaultSource =>
  label.startsWith("plugin:") ? (label as FaultSource) : `hook:${label}`;

/** A handler that failed: the bus goes on without it. */
export interface HookProblem {
  hook: HookName;
  label: string;
  /** `threw`: the handler threw or rejected; `timeout`: it ran past its limit; `answer`: it answered something unusable; `load`: its code could not load. */
  kind: "threw" | "timeout" | "answer" | "load";
  message: string;
}

export interface HookBusOptions {
  /** Time limit per handler call (hooks.timeout). */
  timeoutMs: number;
  /** Told about every failure (the runtime logs them). Must not throw. */
  report: (problem: HookProblem) => void;
}

/** What pre_tool_call decided: the call is blocked with a reason for the model, or runs with `args`. */
export type ToolCallDecision = { blocked: string } | { blocked?: undefined; args: Record<string, unknown> };

const TIMED_OUT = Symbol("timed out");
const TOOL_HOOKS: ReadonlySet<HookName> = new Set([
  "pre_tool_call",
  "post_tool_call",
  "transform_tool_result",
  "transform_terminal_output",
]);

/**
 * Each handler gets its own payload, and its own `args` object: one that edits them changes
 * nothing for the others or for the call (a deep copy would cost more than most hooks do).
 */
function copyOf(payload: HookPayload): HookPayload {
  const args = payload.args;
  return isRecord(args) ? { ...payload, args: { ...args } } : { ...payload };
}

/** The verb of a directive in either spelling: `{action: ...}` or `{decision: ...}`. */
const verbOf = (v: Record<string, unknown>): unknown => v.action ?? v.decision;

/** A non-empty string, or the text under `key` of an object answer. */
function textAnswer(value: unknown, key: string): string | undefined {
  if (typeof value === "string") return value;
  if (isRecord(value) && typeof value[key] === "string") return value[key] as string;
  return undefined;
}

export class HookBus {
  private readonly handlers = new Map<HookName, Entry[]>();
  /** Hooks whose list still holds registrations not loaded yet. */
  private readonly lazy = new Set<HookName>();
  private readonly loading = new Map<HookName, Promise<void>>();
  private readonly known: ReadonlySet<string> = new Set(HOOK_NAMES);
  /** Labels taken off the bus: a load that finishes later does not bring them back. */
  private readonly removed = new Set<string>();

  constructor(private readonly options: HookBusOptions) {}

  /** Adds a handler (after those already there); false, and nothing added, for a name that is not a hook. */
  on(registration: HookRegistration | LazyHookRegistration): boolean {
    if (!this.known.has(registration.name) || this.removed.has(registration.label)) return false;
    const list = this.handlers.get(registration.name);
    if (list) list.push(registration);
    else this.handlers.set(registration.name, [registration]);
    if (isLazy(registration)) this.lazy.add(registration.name);
    return true;
  }

  /**
   * Takes every handler registered under `label` off the bus, for good (a plugin that was
   * disabled). Returns how many registrations went.
   */
  off(label: string): number {
    this.removed.add(label);
    let count = 0;
    for (const [name, list] of this.handlers) {
      const kept = list.filter((e) => e.label !== label);
      count += list.length - kept.length;
      if (kept.length === 0) this.handlers.delete(name);
      else if (kept.length < list.length) this.handlers.set(name, kept);
      if (!kept.some(isLazy)) this.lazy.delete(name);
    }
    return count;
  }

  /** True when something listens to `name`. Call sites check it before building a payload. */
  has(name: HookName): boolean {
    return this.handlers.has(name);
  }

  /** Hooks with at least one handler. */
  names(): HookName[] {
    return [...this.handlers.keys()];
  }

  /** Observers: every handler at once, answers ignored. Never rejects. */
  async emit(name: HookName, payload: HookPayload): Promise<void> {
    if (this.lazy.has(name)) await this.expand(name);
    const list = this.listFor(name, payload);
    if (list.length === 1) await this.call(list[0]!, payload);
    else if (list.length > 0) await Promise.all(list.map((r) => this.call(r, payload)));
  }

  /**
   * pre_tool_call, handler by handler: the first `{action: "block", message}` (or `{decision:
   * "block", reason}`) wins and the tool does not run; `{action: "modify", args}` (or `{decision:
   * "modify", tool_input}`) replaces the arguments for the handlers after it and for the call.
   */
  async beforeToolCall(payload: HookPayload & { args: Record<string, unknown> }): Promise<ToolCallDecision> {
    if (this.lazy.has("pre_tool_call")) await this.expand("pre_tool_call");
    let args = payload.args;
    for (const r of this.listFor("pre_tool_call", payload)) {
      const answer = await this.call(r, { ...payload, args });
      if (!isRecord(answer)) continue;
      const verb = verbOf(answer);
      if (verb === "block") {
        const why = answer.message ?? answer.reason;
        return { blocked: typeof why === "string" && why.trim() ? why : `Blocked by the hook ${r.label}.` };
      }
      if (verb === "modify") {
        const next = answer.args ?? answer.tool_input;
        if (isRecord(next)) args = next;
        else this.problem(r, "pre_tool_call", "answer", "answered modify without an 'args' object");
      }
    }
    return { args };
  }

  /**
   * transform_* hooks, handler by handler: each sees (under `key`) the text the one before it left,
   * and answers a replacement string (or `{result: string}`), or nothing to leave it as it is.
   * transform_llm_output ignores an empty replacement: an empty answer is never a success.
   */
  async transform(
    name: "transform_tool_result" | "transform_terminal_output" | "transform_llm_output",
    payload: HookPayload,
    key: string,
  ): Promise<string> {
    if (this.lazy.has(name)) await this.expand(name);
    let text = String(payload[key] ?? "");
    for (const r of this.listFor(name, payload)) {
      const answer = await this.call(r, { ...payload, [key]: text });
      if (answer === undefined || answer === null) continue;
      const next = textAnswer(answer, "result");
      if (next === undefined)
        this.problem(r, name, "answer", "answered something other than a string or {result}");
      else if (next || name !== "transform_llm_output") text = next;
    }
    return text;
  }

  /** pre_llm_call: the context every handler adds (a string or `{context}`), joined by blank lines. */
  async collectContext(payload: HookPayload): Promise<string> {
    if (this.lazy.has("pre_llm_call")) await this.expand("pre_llm_call");
    const list = this.listFor("pre_llm_call", payload);
    const answers = await Promise.all(list.map((r) => this.call(r, payload)));
    return answers
      .map((a) => textAnswer(a, "context")?.trim() ?? "")
      .filter(Boolean)
      .join("\n\n");
  }

  /** The loaded handlers of `name` that apply (tool hooks may be for some tools only). */
  private listFor(name: HookName, payload: HookPayload): HookRegistration[] {
    const list = (this.handlers.get(name) ?? []).filter((e): e is HookRegistration => !isLazy(e));
    if (!TOOL_HOOKS.has(name)) return list;
    const tool = typeof payload.tool_name === "string" ? payload.tool_name : "";
    return list.filter((r) => !r.matches || r.matches(tool));
  }

  /** Loads the lazy registrations of `name` (once, however many firings wait for it). */
  private expand(name: HookName): Promise<void> {
    let running = this.loading.get(name);
    if (!running) {
      running = this.loadAll(name).finally(() => this.loading.delete(name));
      this.loading.set(name, running);
    }
    return running;
  }

  /** Each lazy registration becomes its handlers, in its place; a failed one goes. */
  private async loadAll(name: HookName): Promise<void> {
    const before = this.handlers.get(name) ?? [];
    const replaced = await Promise.all(
      before.map(async (e): Promise<Entry[]> => {
        if (!isLazy(e)) return [e];
        const handlers = await this.callLoad(e);
        return handlers ? handlers.map((handler) => ({ name, label: e.label, handler })) : [e];
      }),
    );
    // Registrations added while loading (a plugin's own, as it registered) come after; those
    // taken off meanwhile stay off.
    const next = [...replaced.flat(), ...(this.handlers.get(name) ?? []).slice(before.length)].filter(
      (e) => !this.removed.has(e.label),
    );
    if (next.length > 0) this.handlers.set(name, next);
    else this.handlers.delete(name);
    if (!next.some(isLazy)) this.lazy.delete(name);
  }

  /** A lazy registration's handlers; [] when it failed, undefined when it is still loading. */
  private async callLoad(e: LazyHookRegistration): Promise<HookHandler[] | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<typeof TIMED_OUT>((resolve) => {
      timer = setTimeout(() => resolve(TIMED_OUT), this.options.timeoutMs);
    });
    try {
      const handlers = await Promise.race([runAsSource(sourceOf(e.label), () => e.load()), expired]);
      if (handlers !== TIMED_OUT) return handlers;
      this.problem(
        e,
        e.name,
        "timeout",
        `was still loading after ${this.options.timeoutMs / 1000} s; skipped this time`,
      );
      return undefined;
    } catch (err) {
      this.problem(e, e.name, "load", `could not load: ${err instanceof Error ? err.message : String(err)}`);
      return [];
    } finally {
      clearTimeout(timer);
    }
  }

  /** One handler call within its time limit; failures are reported and come back as undefined. */
  private async call(r: HookRegistration, payload: HookPayload): Promise<unknown> {
    const controller = new AbortController();
    const limit = r.timeoutMs ?? this.options.timeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<typeof TIMED_OUT>((resolve) => {
      timer = setTimeout(() => resolve(TIMED_OUT), limit);
    });
    try {
      // What the handler starts (a timer that throws later) is its source's, for the crash guard.
      const source = sourceOf(r.label);
      const answer = await Promise.race([
        Promise.resolve().then(() =>
          runAsSource(source, () => r.handler(copyOf(payload), controller.signal)),
        ),
        expired,
      ]);
      if (answer === TIMED_OUT) {
        // A shell command is killed with what it started; a plugin function is left to itself.
        controller.abort();
        this.problem(r, r.name, "timeout", `did not finish within ${limit / 1000} s; skipped`);
        return undefined;
      }
      // An object answer is read as plain data here, inside the try: a getter that throws (or a
      // cycle) is this handler's failure, never the caller's.
      return typeof answer === "object" && answer !== null ? JSON.parse(JSON.stringify(answer)) : answer;
    } catch (err) {
      this.problem(r, r.name, "threw", `failed: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  private problem(r: Entry, hook: HookName, kind: HookProblem["kind"], message: string): void {
    try {
      this.options.report({ hook, label: r.label, kind, message });
    } catch {
      // Reporting is best effort.
    }
  }
}
