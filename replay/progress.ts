// A progress line on stderr for long replays (events read, events/s), redrawn a few times a second,
// and silent when stderr is not a terminal (CI logs, pipes).
export class Progress {
  private readonly enabled: boolean;
  private readonly started = performance.now();
  private lastDraw = 0;
  private readonly label: string;

  constructor(label: string, enabled = process.stderr.isTTY === true) {
    this.label = label;
    this.enabled = enabled;
  }

  tick(seq: number): void {
    if (!this.enabled || (seq & 1023) !== 0) return;
    const now = performance.now();
    if (now - this.lastDraw < 200) return;
    this.lastDraw = now;
    this.draw(seq, now);
  }

  done(seq: number): void {
    if (!this.enabled) return;
    this.draw(seq, performance.now());
    process.stderr.write('\n');
  }

  private draw(seq: number, now: number): void {
    const seconds = (now - this.started) / 1000;
    const rate = seconds > 0 ? Math.round(seq / seconds) : 0;
    process.stderr.write(`\r${this.label}: seq ${seq.toLocaleString('en-US')}  ${rate.toLocaleString('en-US')} events/s  ${seconds.toFixed(1)} s   `);
  }
}
