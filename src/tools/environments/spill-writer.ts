import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { StringDecoder } from "node:string_decoder";
import { cleanTerminalOutput, spillFilePath } from "../output.js";

/** A partial line longer than this is cleaned and written without waiting for its newline. */
const MAX_CARRY = 64 * 1024;

/**
 * Streams a command's complete output to a file, cleaned the way the captured text is (ANSI
 * removed, `\r` progress collapsed), line by line so escape sequences are not split. Writes are
 * synchronous: memory stays bounded however fast the command prints, at the cost of blocking the
 * event loop for the length of a disk write. Never throws: a failed write stops the file and is
 * remembered in `error`.
 */
export class SpillWriter {
  readonly path: string;
  private fd: number | undefined;
  private readonly decoder = new StringDecoder("utf8");
  private carry = "";
  private bytes = 0;
  error: string | undefined;

  constructor(dir: string, label: string) {
    this.path = spillFilePath(dir, label);
  }

  /** Bytes written to the file so far. */
  get size(): number {
    return this.bytes;
  }

  write(chunk: Buffer | string): void {
    if (this.error !== undefined) return;
    this.carry += typeof chunk === "string" ? chunk : this.decoder.write(chunk);
    const cut = this.carry.lastIndexOf("\n");
    if (cut >= 0) {
      this.emit(this.carry.slice(0, cut + 1));
      this.carry = this.carry.slice(cut + 1);
    }
    if (this.carry.length > MAX_CARRY) {
      this.emit(this.carry);
      this.carry = "";
    }
  }

  /** Flushes the last partial line and closes the file. Returns the path, or undefined after an error. */
  finish(): string | undefined {
    if (this.error === undefined) this.emit(this.carry + this.decoder.end());
    this.carry = "";
    if (this.fd !== undefined) {
      try {
        closeSync(this.fd);
      } catch {
        // nothing useful to do: the data was written synchronously
      }
      this.fd = undefined;
    }
    return this.error === undefined ? this.path : undefined;
  }

  private emit(text: string): void {
    if (!text) return;
    try {
      if (this.fd === undefined) {
        mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
        this.fd = openSync(this.path, "w", 0o600);
      }
      const buf = Buffer.from(cleanTerminalOutput(text), "utf8");
      let off = 0;
      while (off < buf.length) off += writeSync(this.fd, buf, off);
      this.bytes += buf.length;
    } catch (err) {
      this.error = (err as Error).message;
    }
  }
}
