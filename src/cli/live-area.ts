import { Writable } from "node:stream";
import { advance, type CursorSpot, fitWidth, type MaybeTty, textWidth } from "./terminal-text.js";

/**
 * The bottom of the terminal while the agent works: a spinner line with elapsed time and the line
 * the user is typing, below the scrollback. Every scrollback write goes through `write()`: the area
 * is cleared, the text written, the area drawn again, so the two never overwrite each other and no
 * spinner frame stays behind.
 *
 * The top of the area is remembered with save-cursor (DECSC) after making room below with index
 * (IND), so clearing is restore + erase-down whatever the area held; an unfinished scrollback line
 * keeps its place and the next text continues it.
 */

/** What the spinner line says: "thinking", a tool's label; `since` starts its elapsed time. */
export interface LiveStatus {
  label: string;
  since: number;
}

/** The input line as the line editor lays it out: prompt + text, and the cursor (row/column from its start). */
export interface LiveInput {
  text: string;
  cursorRow: number;
  cursorCol: number;
}

export interface LiveAreaOptions {
  /** Clock for elapsed times (tests). */
  now?: () => number;
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const TICK_MS = 100;
const SAVE = "\x1b7";
const RESTORE = "\x1b8";
const ERASE_DOWN = "\x1b[J";
const INDEX = "\x1bD";

/** `3.2s`, `1m05s`. */
export function formatElapsed(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  if (s < 60) return `${s.toFixed(1)}s`;
  const whole = Math.floor(s);
  return `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, "0")}s`;
}

/** An area on `stream` when it is a terminal that can hold one (not TERM=dumb); otherwise none. */
export function liveAreaFor(stream: MaybeTty, env: NodeJS.ProcessEnv = process.env): LiveArea | undefined {
  return stream.isTTY && env.TERM !== "dumb" ? new LiveArea(stream) : undefined;
}

/** Owns the bottom lines of one terminal stream. Never throws; a closed area writes through. */
export class LiveArea {
  private status: LiveStatus | undefined;
  private input: (() => LiveInput | undefined) | undefined;
  private suspended = false;
  private closed = false;
  private drawn = false;
  private spot: CursorSpot = { col: 0, dirty: false };
  private timer: NodeJS.Timeout | undefined;
  private frame = 0;
  private redrawQueued = false;
  private readonly now: () => number;
  private readonly detach: Array<() => void> = [];

  constructor(
    readonly term: MaybeTty,
    opts: LiveAreaOptions = {},
  ) {
    this.now = opts.now ?? Date.now;
    const onResize = (): void => this.redraw();
    term.on("resize", onResize);
    this.detach.push(() => term.removeListener("resize", onResize));
  }

  /** Whether the cursor is at the start of an empty row (nothing drawn after it). */
  get atLineStart(): boolean {
    return !this.spot.dirty;
  }

  /** Scrollback text for `stream`: clear the area, write, draw it again. */
  write(text: string, stream: NodeJS.WritableStream = this.term): void {
    if (!text) return;
    if (!this.sharesScreen(stream)) {
      stream.write(text);
      return;
    }
    const undraw = this.undraw();
    this.spot = advance(this.spot, text, this.columns());
    if (stream === this.term) this.term.write(undraw + text + this.renderNow());
    else {
      if (undraw) this.term.write(undraw);
      stream.write(text);
      const area = this.renderNow();
      if (area) this.term.write(area);
    }
  }

  /** Shows (or, with undefined, hides) the spinner line; its time ticks ~10 times a second while shown. */
  setStatus(status: LiveStatus | undefined): void {
    if (this.closed) return;
    if (status?.label === this.status?.label && status?.since === this.status?.since) return;
    this.status = status;
    this.syncTimer();
    this.redraw();
  }

  /**
   * Draws the line being typed in the area (`source` is read at every draw); undefined hands the
   * line back to the line editor. While the area owns it, the editor's own output is dropped
   * (see `editorOutput`).
   */
  setInput(source: (() => LiveInput | undefined) | undefined): void {
    if (this.closed) return;
    if (source) {
      this.input = source;
      this.redraw();
      return;
    }
    // Hand-back, at the end of a turn (the spinner goes too): the typed line stays where it is, laid
    // out as the editor lays it out, so the editor's next redraw (from its cursor row) replaces it.
    const typed = this.suspended ? undefined : this.input?.();
    this.input = undefined;
    this.status = undefined;
    this.syncTimer();
    const out = this.undraw() + this.render(undefined, typed);
    if (out) this.term.write(out);
    if (this.drawn) {
      this.drawn = false;
      this.spot = { col: 1, dirty: true };
    }
  }

  /** Something else owns the terminal for a while (an approval prompt): clear and stop drawing. */
  suspend(): void {
    if (this.closed || this.suspended) return;
    const undraw = this.undraw();
    if (undraw) this.term.write(undraw);
    this.suspended = true;
    this.syncTimer();
  }

  resume(): void {
    if (this.closed || !this.suspended) return;
    this.suspended = false;
    this.syncTimer();
    this.redraw();
  }

  /** Clears the area for good and leaves the cursor at the start of a line (for the shell's prompt). */
  close(): void {
    if (this.closed) return;
    const undraw = this.undraw();
    this.term.write(undraw + (this.spot.dirty ? "\r\n" : ""));
    this.spot = { col: 0, dirty: false };
    this.closed = true;
    this.status = undefined;
    this.input = undefined;
    this.syncTimer();
    for (const d of this.detach.splice(0)) d();
  }

  /**
   * The output stream for a line editor (node:readline) on this terminal: passed through while the
   * editor owns the input line, dropped while the area draws it (every drop schedules a redraw,
   * since the edit changed the line).
   */
  editorOutput(): MaybeTty {
    const out = new Writable({
      decodeStrings: false,
      write: (chunk: string | Buffer, _enc, done) => {
        this.fromEditor(String(chunk));
        done();
      },
    }) as Writable & MaybeTty;
    const term = this.term;
    Object.defineProperties(out, {
      isTTY: { value: Boolean(term.isTTY) },
      columns: { get: () => term.columns },
      rows: { get: () => term.rows },
    });
    const onResize = (): void => {
      out.emit("resize");
    };
    term.on("resize", onResize);
    this.detach.push(() => term.removeListener("resize", onResize));
    return out;
  }

  private fromEditor(text: string): void {
    if (this.input && !this.suspended && !this.closed) {
      this.queueRedraw();
      return;
    }
    const undraw = this.undraw();
    this.term.write(undraw + text);
    // The editor positions its cursor with escapes; only a finished line is known to end at column 0.
    this.spot = text.endsWith("\n") ? { col: 0, dirty: false } : { col: 1, dirty: true };
  }

  private sharesScreen(stream: NodeJS.WritableStream): boolean {
    if (this.closed) return false;
    return stream === this.term || (Boolean((stream as MaybeTty).isTTY) && Boolean(this.term.isTTY));
  }

  private columns(): number {
    return Math.max(10, this.term.columns ?? 80);
  }

  private queueRedraw(): void {
    if (this.redrawQueued) return;
    this.redrawQueued = true;
    process.nextTick(() => {
      this.redrawQueued = false;
      this.redraw();
    });
  }

  private redraw(): void {
    if (this.closed) return;
    const out = this.undraw() + this.renderNow();
    if (out) this.term.write(out);
  }

  /** The area as it stands: nothing while suspended. */
  private renderNow(): string {
    if (this.suspended || this.closed) return "";
    return this.render(this.status, this.input?.());
  }

  /** The escapes that remove the drawn area, leaving the cursor where the scrollback continues. */
  private undraw(): string {
    if (!this.drawn) return "";
    this.drawn = false;
    return RESTORE + ERASE_DOWN;
  }

  /** The escapes that draw the area below the scrollback (empty when there is nothing to show). */
  private render(status: LiveStatus | undefined, typed: LiveInput | undefined): string {
    const cols = this.columns();
    const rows: string[] = [];
    if (status) rows.push(this.statusLine(status, cols));
    const inputText = typed && typed.text.length > 0 ? typed : undefined;
    if (rows.length === 0 && !inputText) return "";
    let out = "";
    if (this.spot.col >= cols) {
      // A full last row waits to wrap: the next text starts on a new row anyway.
      out += "\r\n";
      this.spot = { col: 0, dirty: false };
    }
    const below = this.spot.dirty ? 1 : 0;
    const inputRows = inputText
      ? Math.max(Math.floor(textWidth(inputText.text) / cols) + 1, inputText.cursorRow + 1)
      : 0;
    const reach = below + rows.length + inputRows - 1;
    // Make room first: the saved position must not move when the area scrolls the screen.
    if (reach > 0) out += `${INDEX.repeat(reach)}\x1b[${reach}A`;
    out += SAVE + (below ? "\r\n" : "\r") + rows.join("\r\n");
    if (inputText) {
      if (rows.length > 0) out += "\r\n";
      const down = below + rows.length + inputText.cursorRow;
      out += `${inputText.text}${RESTORE}${down > 0 ? `\x1b[${down}B` : ""}\x1b[${inputText.cursorCol + 1}G`;
    }
    this.drawn = true;
    return out;
  }

  private statusLine(status: LiveStatus, cols: number): string {
    const elapsed = ` ${formatElapsed(this.now() - status.since)}`;
    const head = `  ${FRAMES[this.frame % FRAMES.length]} `;
    // A little slack: a character drawn wider than estimated must not wrap the line.
    const room = Math.max(1, cols - textWidth(head) - elapsed.length - 3);
    return `${head}${fitWidth(status.label, room)}${elapsed}`;
  }

  private syncTimer(): void {
    const wanted = this.status !== undefined && !this.suspended && !this.closed;
    if (wanted && !this.timer) {
      this.timer = setInterval(() => {
        this.frame++;
        this.redraw();
      }, TICK_MS);
      this.timer.unref();
    } else if (!wanted && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}
