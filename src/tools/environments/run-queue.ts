import { untilAborted } from "./remote-process.js";

/**
 * Serialises the commands of one environment. A command reads the task's saved cwd and variables
 * when it starts and writes them back when it ends; two at once would each start from the same
 * state and the later save would drop the earlier one's `cd`/`export`. In turn order, every
 * command starts from what the previous one left, as in one interactive shell.
 *
 * Only commands queue: file reads and writes, `stat`, and background starts read the last saved
 * state without waiting, so a long foreground build never holds them up.
 */
export class RunQueue {
  private tail: Promise<void> = Promise.resolve();

  /**
   * Waits for every earlier command to finish. Resolves to the function that lets the next one
   * go (call it exactly once), or to undefined when `signal` aborted first: then nothing is held.
   */
  async acquire(signal?: AbortSignal): Promise<(() => void) | undefined> {
    if (signal?.aborted) return undefined;
    const before = this.tail;
    let release!: () => void;
    const mine = new Promise<void>((resolveTurn) => {
      release = resolveTurn;
    });
    this.tail = before.then(() => mine);
    const turn = await untilAborted(
      before.then(() => true),
      signal,
    );
    if (turn) return release;
    // Given up while waiting: the turn passes straight on once it comes.
    release();
    return undefined;
  }
}
