import { clearScreenDown, emitKeypressEvents, type Interface, moveCursor } from "node:readline";
import type { ClarifyFn, ClarifyRequest } from "../../tools/context.js";

export interface ClarifyPromptOptions {
  output: NodeJS.WritableStream;
  /** The readline interface owning the input (the chat's); read at prompt time. */
  rl: () => Interface | undefined;
  /**
   * The terminal the picker reads keys from (default: process.stdin). The arrow-key picker is used
   * when it is a TTY (or `picker` says so); otherwise the numbered prompt.
   */
  input?: NodeJS.ReadableStream & { isTTY?: boolean };
  picker?: boolean;
  onOpen?: () => void;
  onClose?: () => void;
}

export const OTHER_LABEL = "Other (type your answer)";

/** The question and its numbered choices; the last number is "Other" (type an answer). */
export function formatClarify(req: Pick<ClarifyRequest, "question" | "choices">): string {
  const lines = ["", `❓ ${req.question}`];
  req.choices.forEach((c, i) => {
    lines.push(`  ${i + 1}. ${c}`);
  });
  if (req.choices.length > 0) lines.push(`  ${req.choices.length + 1}. ${OTHER_LABEL}`);
  return `${lines.join("\n")}\n`;
}

/** A number picks a choice (the "Other" number asks again for free text); anything else is the answer. */
export function parseClarifyAnswer(answer: string, choices: readonly string[]): string | "other" | undefined {
  const a = answer.trim();
  if (!a) return undefined;
  if (/^\d+$/.test(a)) {
    const n = Number(a);
    if (n >= 1 && n <= choices.length) return choices[n - 1];
    if (n === choices.length + 1 && choices.length > 0) return "other";
  }
  return a;
}

/** A key as readline's keypress events describe it. */
export interface PickerKey {
  name?: string | undefined;
  sequence?: string | undefined;
  ctrl?: boolean | undefined;
}

/** Where the picker stands: `count` entries (the choices, then Other), `index` highlighted. */
export interface PickerState {
  index: number;
  count: number;
}

export type PickerStep =
  | { kind: "move"; state: PickerState }
  | { kind: "choose"; index: number }
  | { kind: "other" }
  | { kind: "cancel" }
  | { kind: "ignore" };

/**
 * The picker's key handling, pure: up/down (and Ctrl+P/N, k/j) move with wrap-around, Enter takes
 * the highlighted entry, a digit takes that entry directly, the last entry switches to free text,
 * Esc and Ctrl+C give no answer.
 */
export function pickerKey(state: PickerState, key: PickerKey): PickerStep {
  const take = (index: number): PickerStep =>
    index === state.count - 1 ? { kind: "other" } : { kind: "choose", index };
  if (key.ctrl && (key.name === "c" || key.name === "d")) return { kind: "cancel" };
  if (key.name === "escape") return { kind: "cancel" };
  const up = key.name === "up" || (key.ctrl && key.name === "p") || (!key.ctrl && key.name === "k");
  const down = key.name === "down" || (key.ctrl && key.name === "n") || (!key.ctrl && key.name === "j");
  if (up) return { kind: "move", state: { ...state, index: (state.index - 1 + state.count) % state.count } };
  if (down) return { kind: "move", state: { ...state, index: (state.index + 1) % state.count } };
  if (key.name === "return" || key.name === "enter") return take(state.index);
  if (!key.ctrl && key.sequence && /^[1-9]$/.test(key.sequence)) {
    const n = Number(key.sequence);
    if (n <= state.count) return take(n - 1);
  }
  return { kind: "ignore" };
}

/** The picker's lines: the question, then each entry with the highlighted one marked. */
export function renderPicker(
  req: Pick<ClarifyRequest, "question" | "choices">,
  state: PickerState,
): string[] {
  const entries = [...req.choices, OTHER_LABEL];
  return [
    `❓ ${req.question}`,
    ...entries.map((c, i) => `${i === state.index ? "❯" : " "} ${i + 1}. ${c}`),
    "  (↑/↓ to move, Enter or a number to choose)",
  ];
}

/**
 * Arrow-key selection on a raw-mode terminal. The chat's readline keeps the terminal, but its
 * keypress listeners are set aside while the picker runs so a key never reaches both.
 */
function pick(
  req: ClarifyRequest,
  input: NodeJS.ReadableStream & { isTTY?: boolean },
  output: NodeJS.WritableStream,
): Promise<PickerStep & { kind: "choose" | "other" | "cancel" }> {
  emitKeypressEvents(input);
  let state: PickerState = { index: 0, count: req.choices.length + 1 };
  let drawn = 0;
  const draw = (): void => {
    if (drawn > 0) {
      moveCursor(output, 0, -drawn);
      clearScreenDown(output);
    }
    const lines = renderPicker(req, state);
    output.write(`${lines.join("\n")}\n`);
    drawn = lines.length;
  };
  const saved = input.listeners("keypress") as Array<(...args: unknown[]) => void>;
  input.removeAllListeners("keypress");
  output.write("\n");
  draw();
  return new Promise((resolve) => {
    const finish = (step: PickerStep & { kind: "choose" | "other" | "cancel" }): void => {
      input.removeListener("keypress", onKey);
      req.signal.removeEventListener("abort", onAbort);
      for (const l of saved) input.on("keypress", l);
      resolve(step);
    };
    const onKey = (_s: string | undefined, key: PickerKey | undefined): void => {
      const step = pickerKey(state, key ?? { sequence: _s });
      if (step.kind === "move") {
        state = step.state;
        draw();
      } else if (step.kind !== "ignore") finish(step);
    };
    const onAbort = (): void => finish({ kind: "cancel" });
    input.on("keypress", onKey);
    req.signal.addEventListener("abort", onAbort, { once: true });
    input.resume();
  });
}

/** One line from the chat's readline; undefined when it closes or the request is aborted. */
function ask(rl: Interface, prompt: string, signal: AbortSignal): Promise<string | undefined> {
  return new Promise<string | undefined>((resolve) => {
    const onClose = (): void => resolve(undefined);
    rl.once("close", onClose);
    try {
      rl.question(prompt, { signal }, (a) => {
        rl.off("close", onClose);
        resolve(a);
      });
    } catch {
      resolve(undefined);
    }
    signal.addEventListener("abort", () => resolve(undefined), { once: true });
  });
}

/** The terminal picker for `clarify`, asked on the chat's readline. */
export function createClarifyPrompt(opts: ClarifyPromptOptions): ClarifyFn {
  return async (req) => {
    const rl = opts.rl();
    if (!rl || req.signal.aborted) return undefined;
    const input = opts.input ?? process.stdin;
    const usePicker = req.choices.length > 0 && (opts.picker ?? Boolean(input.isTTY));
    opts.onOpen?.();
    try {
      if (usePicker) {
        const step = await pick(req, input, opts.output);
        if (step.kind === "cancel") return undefined;
        if (step.kind === "choose") {
          opts.output.write(`  → ${req.choices[step.index]}\n`);
          return req.choices[step.index];
        }
        opts.output.write("  Type your answer:\n");
        for (;;) {
          const raw = await ask(rl, "  answer › ", req.signal);
          if (raw === undefined) return undefined;
          if (raw.trim()) return raw.trim();
        }
      }
      opts.output.write(formatClarify(req));
      for (;;) {
        const raw = await ask(
          rl,
          req.choices.length > 0 ? "  choice or answer › " : "  answer › ",
          req.signal,
        );
        if (raw === undefined) return undefined;
        const parsed = parseClarifyAnswer(raw, req.choices);
        if (parsed === "other") {
          opts.output.write("  Type your answer:\n");
          continue;
        }
        if (parsed !== undefined) return parsed;
      }
    } finally {
      opts.onClose?.();
    }
  };
}
