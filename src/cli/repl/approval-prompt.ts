import type { Interface } from "node:readline";
import type { ApprovalChoice, ApprovalRequest, ApproveFn } from "../../tools/approval/types.js";

/**
 * The terminal approval prompt: shows the command and why it was flagged, then reads one answer
 * line: [o]nce, [s]ession, [a]lways or [d]eny. It asks through the readline interface that already
 * owns stdin (the chat's), so nothing else competes for the keyboard; without one it opens a
 * temporary interface for the question. A timeout, an interrupt or Ctrl+C answers "deny".
 */

export interface ApprovalPromptOptions {
  /** Where the prompt is written. */
  output: NodeJS.WritableStream & { isTTY?: boolean };
  /** The readline interface owning the input (the chat's); read at prompt time. */
  rl?: () => Interface | undefined;
  /** Input for a temporary interface when there is no `rl` (chat -q on a terminal). */
  input?: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Before the prompt appears (pause the spinner) and after it is answered. */
  onOpen?: () => void;
  onClose?: () => void;
  /** ANSI colour (default: when output is a TTY and NO_COLOR is unset). */
  color?: boolean;
}

const MAX_SHOWN_LINES = 12;
const MAX_SHOWN_CHARS = 1200;

/** Reads an answer: o/once/y/yes, s/session, a/always, d/deny/n/no. */
export function parseChoice(answer: string): ApprovalChoice | undefined {
  const a = answer.trim().toLowerCase();
  if (a === "o" || a === "once" || a === "y" || a === "yes") return "once";
  if (a === "s" || a === "session") return "session";
  if (a === "a" || a === "always") return "always";
  if (a === "d" || a === "deny" || a === "n" || a === "no") return "deny";
  return undefined;
}

/** The text shown above the question. */
export function formatApprovalRequest(req: ApprovalRequest, color = false): string {
  const paint = (code: string, s: string): string => (color ? `\x1b[${code}m${s}\x1b[0m` : s);
  let shown = req.command;
  const lines = shown.split("\n");
  if (lines.length > MAX_SHOWN_LINES) shown = `${lines.slice(0, MAX_SHOWN_LINES).join("\n")}\n…`;
  if (shown.length > MAX_SHOWN_CHARS) shown = `${shown.slice(0, MAX_SHOWN_CHARS)}…`;
  const out = [
    "",
    paint("1;33", "⚠️  This command needs your approval:"),
    ...shown.split("\n").map((l) => `    ${paint("1", l)}`),
    ...req.reasons.map((r) => `  ${paint("33", "•")} ${r.description}`),
  ];
  if (req.judgeNote) out.push(`  ${paint("2", `approval model: ${req.judgeNote}`)}`);
  return `${out.join("\n")}\n`;
}

const question = (req: ApprovalRequest): string =>
  `  [o]nce  [s]ession  [a]lways  [d]eny  (deny in ${Math.round(req.timeoutMs / 1000)} s) › `;

/** Builds the ApproveFn for a terminal. Prompts never overlap (the gate serialises them). */
export function createApprovalPrompt(opts: ApprovalPromptOptions): ApproveFn {
  const color = opts.color ?? (Boolean(opts.output.isTTY) && !process.env.NO_COLOR);
  return async (req) => {
    if (req.signal.aborted) return "deny";
    const owned = opts.rl?.();
    const rl =
      owned ??
      (opts.input
        ? // node:readline loads only when a prompt is shown: `hermes -z` never asks.
          process
            .getBuiltinModule("node:readline")
            .createInterface({ input: opts.input, output: opts.output, terminal: Boolean(opts.input.isTTY) })
        : undefined);
    if (!rl) return "deny";
    opts.onOpen?.();
    opts.output.write(formatApprovalRequest(req, color));
    try {
      return await ask(rl, req, opts.output, !owned);
    } finally {
      if (!owned) rl.close();
      opts.onClose?.();
    }
  };
}

/** Asks until a valid answer, the signal, Ctrl+C on a temporary interface, or the input ends. */
function ask(
  rl: Interface,
  req: ApprovalRequest,
  output: NodeJS.WritableStream,
  temporary: boolean,
): Promise<ApprovalChoice> {
  return new Promise<ApprovalChoice>((resolve) => {
    let done = false;
    const controller = new AbortController();
    const finish = (choice: ApprovalChoice, note?: string): void => {
      if (done) return;
      done = true;
      controller.abort();
      req.signal.removeEventListener("abort", onAbort);
      rl.off("close", onClose);
      if (temporary) rl.off("SIGINT", onSigint);
      if (note) output.write(`\n  ${note}\n`);
      resolve(choice);
    };
    const onAbort = (): void => finish("deny", "no answer: denied");
    const onClose = (): void => finish("deny", "input closed: denied");
    const onSigint = (): void => finish("deny", "denied");
    req.signal.addEventListener("abort", onAbort, { once: true });
    rl.once("close", onClose);
    if (temporary) rl.on("SIGINT", onSigint);
    const loop = (): void => {
      if (done) return;
      rl.question(question(req), { signal: controller.signal }, (answer) => {
        const choice = parseChoice(answer);
        if (choice) finish(choice);
        else {
          output.write("  Please answer o (once), s (session), a (always) or d (deny).\n");
          loop();
        }
      });
    };
    loop();
  });
}
