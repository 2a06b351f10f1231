import type { Agent } from "../agent/agent.js";
import type { SessionRecorder } from "./recorder.js";

/** What the runtime keeps for one conversation until its agent closes. */
export interface LiveSession {
  readonly agent: Agent;
  /** Persists its events; undefined without a store. */
  recorder: SessionRecorder | undefined;
  /** A subagent: closed by its parent's delegation, or by dispose after the top-level ones. */
  readonly child: boolean;
}

/**
 * The open conversations of a runtime: looked up by their current row id (/title, /undo follow a
 * compression), released when their agent closes, and closed by `dispose`.
 */
export class LiveSessions {
  private readonly open = new Set<LiveSession>();
  /** Background title calls of closed sessions: the store waits for them before it closes. */
  private readonly titling = new Set<Promise<void>>();

  get size(): number {
    return this.open.size;
  }

  add(session: LiveSession): void {
    this.open.add(session);
  }

  /** Ends the stored session and forgets the conversation; a title call still running is kept. */
  release(session: LiveSession, reason: string): void {
    if (!this.open.delete(session)) return;
    const recorder = session.recorder;
    if (!recorder) return;
    recorder.end(reason);
    const job = recorder.settled();
    this.titling.add(job);
    void job.finally(() => this.titling.delete(job));
  }

  /** The open conversation whose current row is `sessionId`. */
  find(sessionId: string): LiveSession | undefined {
    for (const s of this.open) if (s.agent.sessionId === sessionId) return s;
    return undefined;
  }

  /** Closes every open agent: top-level ones first (they stop their background children), then the rest. */
  async closeAll(reason: string): Promise<void> {
    const all = [...this.open];
    await Promise.all(all.filter((s) => !s.child).map((s) => s.agent.close(reason)));
    await Promise.all([...this.open].map((s) => s.agent.close(reason)));
  }

  /** Waits for title calls (of open and closed sessions) at most `timeoutMs`. */
  async settled(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all([...this.titling, ...[...this.open].map((s) => s.recorder?.settled())]),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      }),
    ]);
    clearTimeout(timer);
  }
}
