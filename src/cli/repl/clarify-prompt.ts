import type { Interface } from "node:readline";
import type { ClarifyFn, ClarifyRequest } from "../../tools/context.js";

export interface ClarifyPromptOptions {
  output: NodeJS.WritableStream;
  /** The readline interface owning the input (the chat's); read at prompt time. */
  rl: () => Interface | undefined;
  onOpen?: () => void;
  onClose?: () => void;
}

/** The question and its numbered choices; the last number is "Other" (type an answer). */
export function formatClarify(req: Pick<ClarifyRequest, "question" | "choices">): string {
  const lines = ["", `❓ ${req.question}`];
  req.choices.forEach((c, i) => {
    lines.push(`  ${i + 1}. ${c}`);
  });
  if (req.choices.length > 0) lines.push(`  ${req.choices.length + 1}. Other (type your answer)`);
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

/** The terminal picker for `clarify`, asked on the chat's readline. */
export function createClarifyPrompt(opts: ClarifyPromptOptions): ClarifyFn {
  return async (req) => {
    const rl = opts.rl();
    if (!rl || req.signal.aborted) return undefined;
    opts.onOpen?.();
    opts.output.write(formatClarify(req));
    try {
      for (;;) {
        const raw = await new Promise<string | undefined>((resolve) => {
          const onClose = (): void => resolve(undefined);
          rl.once("close", onClose);
          try {
            rl.question(
              req.choices.length > 0 ? "  choice or answer › " : "  answer › ",
              { signal: req.signal },
              (a) => {
                rl.off("close", onClose);
                resolve(a);
              },
            );
          } catch {
            resolve(undefined);
          }
          req.signal.addEventListener("abort", () => resolve(undefined), { once: true });
        });
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
