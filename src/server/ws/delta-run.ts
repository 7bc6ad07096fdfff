// The l3 deltas of one market published within one turn of the event loop. Each delta is framed once
// (wire-frame.ts); a subscriber that has the run's deltas one after another in its queue gets them as
// one write, and every subscriber that has the whole run shares one Buffer of it, joined once. So the
// cost per subscriber and turn is one write, however many deltas the turn brought; what else the
// subscriber's queue holds keeps its place (only consecutive deltas of the run are joined).
import type { FrameRun, WireFrame } from './wire-frame.ts';

export class DeltaRun implements FrameRun {
  private readonly frames: WireFrame[] = [];
  private joined: Buffer | null = null;

  add(frame: WireFrame): void {
    frame.run = this;
    frame.runIndex = this.frames.length;
    this.frames.push(frame);
    this.joined = null;
  }

  /** The wire bytes of `count` deltas from `from` on: the whole run is joined once and shared. */
  wire(from: number, count: number): Buffer {
    if (from === 0 && count === this.frames.length) {
      this.joined ??= Buffer.concat(this.frames.map((f) => f.wire));
      return this.joined;
    }
    return Buffer.concat(this.frames.slice(from, from + count).map((f) => f.wire));
  }

  /** The turn is over: the deltas go on alone (a queue that could not write them yet, a replay). */
  seal(): void {
    for (const frame of this.frames) frame.run = null;
    this.joined = null;
  }
}
