import { readFileSync } from "node:fs";

/** Every byte of a state.db and its WAL, as text: what a secret must never be found in. */
export function stateDbBytes(path: string): string {
  let text = readFileSync(path).toString("latin1");
  try {
    text += readFileSync(`${path}-wal`).toString("latin1");
  } catch {
    // No WAL left.
  }
  return text;
}
