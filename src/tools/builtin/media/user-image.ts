/**
 * An image the user names in the chat (`/image PATH [question]`) becomes a turn that hands it to
 * `vision_analyze`, so it takes the tool's route: attached natively for a model that takes images,
 * described by the auxiliary vision model otherwise.
 */
import { existsSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, resolve } from "node:path";

export type ImageTurn = { ok: true; text: string; source: string } | { ok: false; error: string };

/** The first argument, quoted ('…' or "…") or with backslash-escaped spaces as terminals paste paths, and the rest. */
export function splitSource(arg: string): [string, string] {
  const s = arg.trim();
  const quote = s[0];
  if (quote === '"' || quote === "'") {
    const end = s.indexOf(quote, 1);
    if (end > 0) return [s.slice(1, end), s.slice(end + 1).trim()];
  }
  const m = /^((?:\\.|\S)+)\s*(.*)$/s.exec(s);
  if (!m) return ["", ""];
  return [m[1]!.replace(/\\(.)/g, "$1"), m[2]!.trim()];
}

/** Builds the turn for `/image ARG` typed in `cwd`. Paths must name an existing file. */
export function imageTurn(arg: string, cwd: string): ImageTurn {
  const [raw, question] = splitSource(arg);
  if (!raw) return { ok: false, error: "Usage: /image <path or URL> [question]" };
  let source = raw;
  if (!/^(https?:|data:)/i.test(raw)) {
    const expanded = raw.startsWith("~/") ? `${homedir()}${raw.slice(1)}` : raw;
    source = isAbsolute(expanded) ? expanded : resolve(cwd, expanded);
    if (!existsSync(source) || !statSync(source).isFile())
      return { ok: false, error: `No such file: ${raw}` };
  }
  const ask = question || "What is in this image?";
  return {
    ok: true,
    source,
    text: `${ask}\n\n[Image: ${source}. Look at it with vision_analyze before answering.]`,
  };
}

const IMAGE_FILE = /\.(png|jpe?g|gif|webp|tiff?|avif)$/i;

/**
 * A prompt that starts with the path of an image file (a file dropped into the terminal pastes
 * its absolute path) as the turn `/image` would send; undefined for any other prompt.
 */
export function droppedImageTurn(line: string, cwd: string): ImageTurn | undefined {
  const [raw] = splitSource(line);
  if (!IMAGE_FILE.test(raw) || !(isAbsolute(raw) || raw.startsWith("~/"))) return undefined;
  const turn = imageTurn(line, cwd);
  return turn.ok ? turn : undefined;
}
