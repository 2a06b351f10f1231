import type { Interface } from "node:readline";
import { Writable } from "node:stream";
import type { LiveArea, LiveInput } from "../live-area.js";
import { colorEnabled, type MaybeTty, paint } from "../terminal-text.js";

/** What the screen asks of the renderer while a prompt owns the terminal. */
export interface Pausable {
  pause(): void;
  resume(): void;
}

/**
 * The chat's side of the terminal. Scrollback text goes through the live area, so it never lands
 * inside the spinner or the typed line; while a turn runs the area draws the line being typed and
 * readline, muted, keeps editing it (history and keys as usual); a prompt that asks mid-turn
 * (approval, clarify) gets the terminal to itself, the unsent line set aside until it is answered.
 */
export class ChatScreen {
  /** The chat's readline, once created. */
  rl: Interface | undefined;
  /** Where prompts write: the chat's scrollback. */
  readonly promptOutput: Writable;
  private typing = false;
  private stashed = "";

  constructor(
    private readonly area: LiveArea | undefined,
    private readonly renderer: Pausable,
    private readonly interactive: boolean,
  ) {
    this.promptOutput = new Writable({
      decodeStrings: false,
      write: (chunk: string | Buffer, _enc, done) => {
        this.say(String(chunk));
        done();
      },
    });
  }

  /** Whether the area draws the typed line during a turn: the chat reads a terminal and writes to the area's. */
  private get ownsTyping(): boolean {
    return this.interactive && this.area?.term === process.stdout;
  }

  /** The output readline is given: the area's pass-through, which it mutes while it draws the line. */
  editorOutput(): MaybeTty {
    return this.ownsTyping && this.area ? this.area.editorOutput() : process.stdout;
  }

  /** Scrollback text for `stream`. */
  say(text: string, stream: NodeJS.WritableStream = process.stdout): void {
    if (this.area) this.area.write(text, stream);
    else stream.write(text);
  }

  /** A line on stderr, red for errors and yellow for warnings on a terminal (NO_COLOR honoured). */
  sayStatus(text: string, style: "error" | "warning"): void {
    this.say(`${paint(style, text, colorEnabled(process.stderr))}\n`, process.stderr);
  }

  /** Ends the line the cursor is in (a notice must not be glued to half a line); unknown without an area. */
  freshLine(stream: NodeJS.WritableStream = process.stdout): void {
    if (this.area?.atLineStart !== true) this.say("\n", stream);
  }

  /** A turn starts (true) or ends (false): the area shows the typed line, then hands it back to readline. */
  typingInArea(on: boolean): void {
    this.typing = on;
    if (this.ownsTyping) this.area?.setInput(on ? this.typedLine : undefined);
  }

  private readonly typedLine = (): LiveInput | undefined => {
    const rl = this.rl;
    if (!rl?.line) return undefined;
    const pos = rl.getCursorPos();
    return { text: rl.getPrompt() + rl.line, cursorRow: pos.rows, cursorCol: pos.cols };
  };

  /** A prompt takes the terminal: the unsent line is set aside, the spinner hidden. */
  readonly promptOpened = (): void => {
    const rl = this.rl;
    if (rl && this.typing && this.ownsTyping && rl.line) {
      // Still muted here: readline redraws nothing on screen while its line is emptied.
      this.stashed = rl.line;
      rl.write(null, { ctrl: true, name: "e" });
      rl.write(null, { ctrl: true, name: "u" });
    }
    this.renderer.pause();
  };

  readonly promptClosed = (): void => {
    this.renderer.resume();
    const text = this.stashed;
    this.stashed = "";
    if (text) this.rl?.write(text);
  };
}
