// Coalesces writes: every queue that got frames during one turn of the event loop is flushed once,
// after the turn's I/O callbacks, so a burst of deltas reaches each socket as one write instead of one
// system call per frame. What a turn built for all queues (the runs of deltas) ends with it.

export interface Flushable {
  /** Hands queued frames to the socket; returns how many. */
  flush(): number;
}

export class FlushScheduler {
  private dirty = new Set<Flushable>();
  private spare = new Set<Flushable>();
  private scheduled = false;
  private turnEnds: (() => void)[] = [];
  /** Frames handed to sockets since start (the metrics read it). */
  framesSent = 0;

  private readonly run = (): void => {
    this.scheduled = false;
    const batch = this.dirty;
    this.dirty = this.spare;
    this.spare = batch;
    let sent = 0;
    for (const q of batch) sent += q.flush();
    this.framesSent += sent;
    batch.clear();
    const ends = this.turnEnds;
    this.turnEnds = [];
    for (const end of ends) end();
  };

  /** Runs `end` once, after this turn's queues were flushed. */
  atTurnEnd(end: () => void): void {
    this.turnEnds.push(end);
    this.arm();
  }

  schedule(queue: Flushable): void {
    this.dirty.add(queue);
    this.arm();
  }

  private arm(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.run);
  }
}
