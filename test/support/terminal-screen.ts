/**
 * What a person would see: bytes written to a terminal, interpreted by a real terminal emulator
 * (xterm.js, headless), read back as rows of text (scrollback included), the cursor and colours.
 */
import xterm from "@xterm/headless";

export interface Screen {
  /** Feeds terminal output; resolves once it is applied. */
  write(data: string): Promise<void>;
  /** Every row, scrollback first, trailing blanks cut; trailing empty rows dropped. */
  rows(): string[];
  /** The rows currently on screen (the viewport). */
  visible(): string[];
  /** Cursor column and row within the viewport. */
  cursor(): { x: number; y: number };
  /** Whether any cell of the row containing `text` (searched from the end) has a foreground colour. */
  colourOf(text: string): number | undefined;
  dispose(): void;
}

/** `convertEol`: a bare LF also returns the carriage, as a PTY's output processing does (for raw stream bytes). */
export function createScreen(cols = 120, rows = 40, opts: { convertEol?: boolean } = {}): Screen {
  const term = new xterm.Terminal({
    cols,
    rows,
    scrollback: 5000,
    allowProposedApi: true,
    convertEol: opts.convertEol ?? false,
  });
  const buffer = () => term.buffer.active;
  // What the eye sees: trailing blanks, written or not, do not count.
  const rowText = (i: number): string => buffer().getLine(i)?.translateToString(true).trimEnd() ?? "";
  return {
    write: (data) => new Promise<void>((resolve) => term.write(data, resolve)),
    rows: () => {
      const out: string[] = [];
      for (let i = 0; i < buffer().length; i++) out.push(rowText(i));
      while (out.length > 0 && out.at(-1) === "") out.pop();
      return out;
    },
    visible: () => {
      const out: string[] = [];
      for (let i = 0; i < rows; i++) out.push(rowText(buffer().baseY + i));
      return out;
    },
    cursor: () => ({ x: buffer().cursorX, y: buffer().cursorY }),
    colourOf: (text) => {
      for (let i = buffer().length - 1; i >= 0; i--) {
        const line = buffer().getLine(i);
        const at = line?.translateToString(true).indexOf(text) ?? -1;
        if (!line || at < 0) continue;
        // The cell where the text starts: walk the cells, counting the characters each holds.
        let offset = 0;
        for (let x = 0; x < line.length; x++) {
          const cell = line.getCell(x);
          if (!cell || cell.getWidth() === 0) continue;
          if (offset >= at) return cell.isFgDefault() ? undefined : cell.getFgColor();
          offset += cell.getChars().length || 1;
        }
        return undefined;
      }
      return undefined;
    },
    dispose: () => term.dispose(),
  };
}
