/**
 * Counts model calls in one run. Children get their own budget; `refund` gives back a call that
 * should not count (programmatic tool calling).
 */
export class IterationBudget {
  private used = 0;

  constructor(readonly max: number) {}

  /** Takes one call from the budget; false when none is left. */
  consume(): boolean {
    if (this.used >= this.max) return false;
    this.used += 1;
    return true;
  }

  refund(): void {
    if (this.used > 0) this.used -= 1;
  }

  get remaining(): number {
    return this.max - this.used;
  }

  get consumed(): number {
    return this.used;
  }
}
