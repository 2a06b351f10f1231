import { existsSync } from "node:fs";
import { copyFile, mkdir } from "node:fs/promises";
import { basename, extname, join } from "node:path";
import type { Agent, RunResult } from "../agent/agent.js";
import type { AgentEvent } from "../agent/events.js";
import type { InboundAttachment, InboundMessage, OutboundTarget, PlatformAdapter } from "./types.js";

/** Where a turn's answer goes (the delivery piece's `Reply`). */
export interface TurnOutput {
  onEvent(e: AgentEvent): void;
  finish(finalText: string): Promise<void>;
  fail(message: string): Promise<void>;
}

/** Documents a user sends are copied here, under the work directory, so file tools can read them. */
export const UPLOADS_DIR = "uploads";

/** A safe, unused file name in `dir` for `name` (no path parts; `report (2).pdf` when taken). */
function uploadName(name: string, taken: (candidate: string) => boolean): string {
  const clean =
    basename(name)
      .replace(/[^\p{L}\p{N}._ -]+/gu, "_")
      .replace(/^\.+/, "") || "file";
  const ext = extname(clean);
  const stem = clean.slice(0, clean.length - ext.length);
  let candidate = clean;
  for (let n = 2; taken(candidate); n++) candidate = `${stem} (${n})${ext}`;
  return candidate;
}

/**
 * Copies the documents of a message into `<workDir>/uploads/` and returns every attachment with
 * the path the model should use. A copy that fails leaves the downloaded path (still readable).
 */
export async function placeAttachments(
  attachments: readonly InboundAttachment[],
  workDir: string,
): Promise<InboundAttachment[]> {
  const dir = join(workDir, UPLOADS_DIR);
  const out: InboundAttachment[] = [];
  for (const a of attachments) {
    if (a.kind !== "document") {
      out.push(a);
      continue;
    }
    try {
      await mkdir(dir, { recursive: true });
      const name = uploadName(a.fileName ?? basename(a.path), (c) => existsSync(join(dir, c)));
      const path = join(dir, name);
      await copyFile(a.path, path);
      out.push({ ...a, path });
    } catch {
      out.push(a);
    }
  }
  return out;
}

const ATTACHMENT_WORDS: Record<InboundAttachment["kind"], string> = {
  image: "an image",
  document: "a document",
  voice: "a voice message",
  audio: "an audio file",
  video: "a video",
};

/** How the model hears of a file: images can be looked at with vision_analyze, documents read. */
function describeAttachment(a: InboundAttachment): string {
  const name = a.fileName ? ` (${a.fileName})` : "";
  if (a.kind === "image") return `The user sent an image: ${a.path}${name} (look at it with vision_analyze).`;
  return `The user sent ${ATTACHMENT_WORDS[a.kind]}: ${a.path}${name}`;
}

/**
 * The one user message of an inbound message: in groups the sender's name goes first ("[Alice]
 * text"), so the model knows who speaks in a shared conversation; attachments follow as lines the
 * model can act on.
 */
export function userMessageText(m: InboundMessage, attachments = m.attachments ?? []): string {
  const lines: string[] = [];
  const text = m.text.trim();
  if (text) lines.push(text);
  for (const a of attachments) lines.push(describeAttachment(a));
  const body = lines.join("\n\n");
  if (m.chatType === "dm") return body;
  const who = m.userName || (m.userHandle ? `@${m.userHandle.replace(/^@/, "")}` : "") || m.userId;
  return `[${who}] ${body}`;
}

export interface TurnOptions {
  agent: Agent;
  /** The user message, already built (userMessageText). */
  text: string;
  output: TurnOutput;
  adapter: PlatformAdapter;
  target: OutboundTarget;
  /** Milliseconds between two typing indicators (gateway.typing_interval); 0 = none. */
  typingIntervalMs: number;
  /** Whether to leave the chat without a word about this result (a turn the gateway's drain cut short). */
  quiet?: (result: RunResult) => boolean;
}

/** What the chat is told when a turn ends without its answer, besides what streamed (none when it completed). */
export function endNote(result: RunResult): string | undefined {
  switch (result.status) {
    case "completed":
      return undefined;
    case "interrupted":
      return "⏹ Stopped.";
    case "budget_exhausted":
      return "I ran out of steps for this request before finishing. Send another message to continue.";
    case "failed":
      return result.error?.message ?? "The request failed.";
  }
}

/**
 * Runs one message through the chat's agent: the answer streams into `output` (whose events the
 * caller routes to it) while a typing indicator repeats, then the final text (or why there is
 * none) is delivered. A failure with nothing said yet is reported as an error; a stop or a spent
 * budget as a note after what was said. Never throws: delivery failures are the output's to log.
 */
export async function runTurn(o: TurnOptions): Promise<RunResult> {
  const typing = startTyping(o.adapter, o.target, o.typingIntervalMs);
  let result: RunResult;
  try {
    result = await o.agent.runConversation(o.text);
  } finally {
    typing();
  }
  if (o.quiet?.(result)) return result;
  const said = result.finalText.trim();
  const note = endNote(result);
  if (!note) await o.output.finish(said ? result.finalText : "(no reply)");
  else if (result.status === "failed" && !said) await o.output.fail(note);
  else await o.output.finish(said ? `${result.finalText}\n\n${note}` : note);
  return result;
}

/** Sends "typing..." now and every `intervalMs` until the returned stop function is called. */
function startTyping(adapter: PlatformAdapter, target: OutboundTarget, intervalMs: number): () => void {
  const send = adapter.sendTyping?.bind(adapter);
  if (!send || intervalMs <= 0) return () => undefined;
  const tick = (): void => void send(target).catch(() => undefined);
  tick();
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
