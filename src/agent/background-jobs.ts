/** Work that outlives the turn that started it (background delegations), until its result is queued. */
export class BackgroundJobs {
  private readonly jobs = new Map<Promise<void>, AbortController | undefined>();

  get size(): number {
    return this.jobs.size;
  }

  /** `controller` stops the job when the agent closes (a job outlives its turn, not its agent). */
  add(job: Promise<void>, controller?: AbortController): void {
    this.jobs.set(job, controller);
    void job.finally(() => this.jobs.delete(job));
  }

  /** Asks every job to stop; they still settle on their own (see `waitAll`). */
  abortAll(): void {
    for (const controller of this.jobs.values()) controller?.abort();
  }

  /** Resolves true once every job (including ones added meanwhile) settled; false on abort first. */
  async waitAll(signal: AbortSignal): Promise<boolean> {
    const aborted = new Promise<false>((resolve) => {
      if (signal.aborted) resolve(false);
      signal.addEventListener("abort", () => resolve(false), { once: true });
    });
    while (this.jobs.size > 0) {
      const done = await Promise.race([Promise.allSettled([...this.jobs.keys()]).then(() => true), aborted]);
      if (!done) return false;
    }
    return true;
  }
}
