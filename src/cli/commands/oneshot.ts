import type { AgentEvent, RunStatus } from "../../agent/events.js";
import { buildUsageReport, UsageTracker, writeUsageReport } from "../../agent/usage.js";
import { baseUrlOverrideNote } from "../../llm/detect.js";
import { pricingLookup } from "../../llm/models/index.js";
import { autoTitleEnabled } from "../../runtime/auto-title.js";
import { createDenialNotes } from "../denial-notes.js";
import { liveAreaFor } from "../live-area.js";
import { openRuntime, type RunFlags } from "../open-runtime.js";
import { TerminalRenderer } from "../render.js";
import { createApprovalPrompt } from "../repl/approval-prompt.js";
import { announceResume, resolveResume } from "../resume.js";
import { installInterruptHandler } from "../signals.js";
import { expandSkillCommand } from "../skill-command.js";

export interface OneshotOptions {
  /** -z: nothing but the final answer on stdout; no progress at all. */
  quiet: boolean;
  /** --usage-file: where to write the JSON usage report when the run ends (whatever its outcome). */
  usageFile?: string | undefined;
}

interface Outcome {
  status: RunStatus;
  error?: string;
  apiCalls: number;
}

/** Writes the usage report if one was asked for; a write failure is reported, never fatal. */
async function saveUsage(
  path: string | undefined,
  tracker: UsageTracker,
  outcome: Outcome,
  startedAt: number,
): Promise<void> {
  if (!path) return;
  const report = buildUsageReport(tracker, { ...outcome, startedAt, finishedAt: Date.now() });
  try {
    await writeUsageReport(path, report);
  } catch (err) {
    process.stderr.write(`hermes: cannot write the usage file ${path}: ${(err as Error).message}\n`);
  }
}

/**
 * Runs one prompt to completion. stdout gets the final answer and a newline; progress (chat -q) goes
 * to stderr. Exit code 0 on success, 1 on failure (a run that ends without answer text is one), 130
 * when interrupted.
 */
export async function runOneshot(prompt: string, flags: RunFlags, opts: OneshotOptions): Promise<number> {
  const startedAt = Date.now();
  if (!prompt.trim()) {
    process.stderr.write("hermes: the prompt is empty\n");
    return 2;
  }
  const runtime = await openRuntime(flags, { quiet: opts.quiet });
  if (!runtime) {
    const error = "Hermes could not start (configuration or provider problem; see stderr)";
    await saveUsage(
      opts.usageFile,
      new UsageTracker(() => undefined),
      { status: "failed", error, apiCalls: 0 },
      startedAt,
    );
    return 1;
  }
  // The chat shows every config warning; -z only this one, which changes the server asked.
  const settings = { ...runtime.config.model, ...(flags.provider ? { provider: flags.provider } : {}) };
  const override = baseUrlOverrideNote(settings, process.env);
  if (override) process.stderr.write(`warning: ${override}\n`);
  const tracker = new UsageTracker(pricingLookup(runtime.target, { home: runtime.paths.home }));
  // chat -q on a terminal shows a spinner on stderr; -z and redirected stderr never do.
  const live = opts.quiet ? undefined : liveAreaFor(process.stderr);
  const renderer = new TerminalRenderer({
    out: process.stderr,
    status: process.stderr,
    streamText: false,
    showTools: !opts.quiet && runtime.config.display.tool_progress,
    showReasoning: !opts.quiet && runtime.config.display.show_reasoning,
    live,
    // -z output is for scripts: plain text even on a terminal.
    ...(opts.quiet ? { color: false } : {}),
  });
  const noteDenial = createDenialNotes((line) =>
    live ? live.write(`${line}\n`) : process.stderr.write(`${line}\n`),
  );
  const onEvent = (e: AgentEvent): void => {
    tracker.handle(e);
    noteDenial(e);
    // -z keeps stdout for the answer alone; provider trouble (waits, key rotation, fallback) still shows on stderr.
    const providerTrouble =
      e.type === "status" && (e.kind === "retry" || e.kind === "rotate" || e.kind === "fallback");
    if (!opts.quiet || providerTrouble) renderer.handle(e);
  };
  // chat -q on a terminal can ask; -z, pipes and cron never do (flagged commands are denied).
  const approve =
    !opts.quiet && process.stdin.isTTY && process.stderr.isTTY
      ? createApprovalPrompt({
          output: process.stderr,
          input: process.stdin,
          onOpen: () => renderer.pause(),
          onClose: () => renderer.resume(),
        })
      : undefined;
  const resumed = resolveResume(runtime, flags);
  if (resumed.error) {
    process.stderr.write(`hermes: ${resumed.error}\n`);
    await runtime.dispose();
    return 1;
  }
  if (resumed.resume && !opts.quiet) announceResume(resumed.resume);
  if (runtime.storeProblem)
    process.stderr.write(`warning: ${runtime.storeProblem} Sessions are not being saved.\n`);
  const agent = runtime.newAgent(onEvent, {
    approve,
    awaitBackground: true,
    // -z is made for scripts: no learning-loop review keeping the process alive after the answer.
    ...(opts.quiet ? { learn: false } : {}),
    autoTitle: autoTitleEnabled(runtime.config.sessions.auto_title, false),
    ...(resumed.resume ? { resume: resumed.resume } : {}),
  });
  const removeHandler = installInterruptHandler(() => agent.interrupt());
  let outcome: Outcome = { status: "failed", error: "the run ended unexpectedly", apiCalls: 0 };
  try {
    // `/<skill-name> args` runs that skill: its instructions and the arguments become the message.
    const message = await expandSkillCommand(agent.skills, prompt);
    if ("error" in message) {
      outcome.error = message.error;
      process.stderr.write(`hermes: ${message.error}\n`);
      return 1;
    }
    const result = await agent.runConversation(message.text);
    outcome = { status: result.status, apiCalls: result.apiCalls };
    if (result.error) outcome.error = result.error.message;
    renderer.close();
    live?.close();
    if (result.status === "completed" || result.status === "budget_exhausted") {
      const answer = result.finalText.trim();
      if (answer) {
        process.stdout.write(`${answer}\n`);
        return 0;
      }
      // An empty stdout with exit 0 would pass for an answer in a script.
      process.stderr.write(`hermes: ${result.error?.message ?? "the model gave no answer"}\n`);
      return 1;
    }
    if (result.status === "interrupted") {
      process.stderr.write("hermes: interrupted\n");
      return 130;
    }
    process.stderr.write(`hermes: ${result.error?.message ?? "the run failed"}\n`);
    return 1;
  } finally {
    live?.close();
    removeHandler();
    await saveUsage(opts.usageFile, tracker, outcome, startedAt);
    await runtime.dispose();
  }
}
