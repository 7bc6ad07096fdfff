// Promises waiting for a seq to become durable, resolved in seq order as batches commit. The service
// asks in seq order, so waiters are appended at the end and released from the front.
interface Waiter {
  readonly seq: number;
  readonly resolve: () => void;
  readonly reject: (err: Error) => void;
}

export class SeqWaiters {
  private waiters: Waiter[] = [];
  private head = 0;

  get size(): number {
    return this.waiters.length - this.head;
  }

  /** The smallest seq anyone waits for, or null. */
  get lowest(): number | null {
    return this.head < this.waiters.length ? (this.waiters[this.head] as Waiter).seq : null;
  }

  wait(seq: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const waiter = { seq, resolve, reject };
      const last = this.waiters[this.waiters.length - 1];
      if (this.head === this.waiters.length || last === undefined || last.seq <= seq) {
        this.waiters.push(waiter);
        return;
      }
      // Out of order (not how the service asks, but allowed): keep the list sorted.
      let i = this.waiters.length;
      while (i > this.head && (this.waiters[i - 1] as Waiter).seq > seq) i--;
      this.waiters.splice(i, 0, waiter);
    });
  }

  /** Resolves every waiter with seq <= durableSeq. */
  release(durableSeq: number): void {
    while (this.head < this.waiters.length) {
      const w = this.waiters[this.head] as Waiter;
      if (w.seq > durableSeq) break;
      this.head++;
      w.resolve();
    }
    if (this.head > 1024 && this.head * 2 > this.waiters.length) {
      this.waiters = this.waiters.slice(this.head);
      this.head = 0;
    }
  }

  rejectAll(err: Error): void {
    const rest = this.waiters.slice(this.head);
    this.waiters = [];
    this.head = 0;
    for (const w of rest) w.reject(err);
  }
}
