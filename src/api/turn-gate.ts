/**
 * Lets requests through one per event-loop turn, in arrival order. Node accepts at most one new
 * connection per turn; a turn that starts every request ready runs for hundreds of milliseconds
 * under load, and new connections then wait in the kernel's queue for seconds while the clients
 * already connected are served. One start per turn keeps turns short and accepting in step.
 */
export class TurnGate {
  private readonly waiting: (() => void)[] = [];
  private armed = false;

  /** Resolves on a later turn, after every earlier caller. */
  enter(): Promise<void> {
    const { promise, resolve } = Promise.withResolvers<void>();
    this.waiting.push(resolve);
    if (!this.armed) {
      this.armed = true;
      setImmediate(this.release);
    }
    return promise;
  }

  private readonly release = (): void => {
    this.waiting.shift()?.();
    if (this.waiting.length > 0) setImmediate(this.release);
    else this.armed = false;
  };
}
