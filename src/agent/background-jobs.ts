/** Work that outlives the turn that started it (background delegations), until its result is queued. */
export class BackgroundJobs {
  private readonly jobs = new Set<Promise<void>>();

  get size(): number {
    return this.jobs.size;
  }

  add(job: Promise<void>): void {
    this.jobs.add(job);
    void job.finally(() => this.jobs.delete(job));
  }

  /** Resolves true once every job (including ones added meanwhile) settled; false on abort first. */
  async waitAll(signal: AbortSignal): Promise<boolean> {
    const aborted = new Promise<false>((resolve) => {
      if (signal.aborted) resolve(false);
      signal.addEventListener("abort", () => resolve(false), { once: true });
    });
    while (this.jobs.size > 0) {
      const done = await Promise.race([Promise.allSettled([...this.jobs]).then(() => true), aborted]);
      if (!done) return false;
    }
    return true;
  }
}
