// The clock of a practice exchange: it tells the recording's time, not the wall clock's. The service
// stamps every command with it (src/server/clock.ts made replaceable), so the core sees simulated time
// exactly as it sees admission time: in the command. A recorded command is stamped with the very time
// it was recorded at (pin, src/server/practice/practice-player.ts); a bot's command with the simulated now, which runs at `speed` times the
// wall clock from the last anchor, holds while paused, and never passes the next recorded command not
// yet played (the ceiling), so the log's times never go back whatever the event loop's delays.
import { AdmissionClock, formatMicros } from '../clock.ts';
import type { Speed } from './practice-control.ts';

export class SimulatedClock extends AdmissionClock {
  /** Simulated microseconds at the anchor, and the wall clock's milliseconds (performance.now) then. */
  private simAnchor: number;
  private wallAnchor = performance.now();
  private rate: Speed = 1;
  private flowing = false;
  private ceiling = Number.POSITIVE_INFINITY;

  constructor(startMicros: number) {
    super();
    this.simAnchor = startMicros;
    this.lastMicros = startMicros;
  }

  get speed(): Speed {
    return this.rate;
  }

  /** The simulated time now, in microseconds: never before the last stamp, never past the ceiling. */
  simulatedMicros(): number {
    let sim = this.simAnchor;
    if (this.flowing && this.rate !== 'max') sim += Math.floor((performance.now() - this.wallAnchor) * 1000 * this.rate);
    if (sim > this.ceiling) sim = this.ceiling;
    return sim > this.lastMicros ? sim : this.lastMicros;
  }

  override nowMicros(): number {
    const sim = this.simulatedMicros();
    // Strictly increasing while there is room below the ceiling; at it, the same time again (a bot's
    // command and the recorded one due at that instant may share it: times never go back).
    const next = sim > this.lastMicros ? sim : Math.min(this.lastMicros + 1, Math.max(this.ceiling, this.lastMicros));
    this.lastMicros = next;
    return next;
  }

  override now(): string {
    return formatMicros(this.simulatedMicros());
  }

  override advanceTo(time: string): void {
    super.advanceTo(time);
    if (this.lastMicros > this.simAnchor) this.reanchor(this.lastMicros);
  }

  /**
   * The simulated time has reached a recorded command's time: the command is stamped with it (its
   * text as recorded), and no later stamp goes before it.
   */
  pin(micros: number): void {
    if (micros > this.lastMicros) this.lastMicros = micros;
    if (!this.flowing || this.rate === 'max') this.simAnchor = Math.max(this.simAnchor, micros);
  }

  /** The simulated time may not pass this (the next recorded command not yet played); Infinity: no bound. */
  limitTo(micros: number): void {
    this.ceiling = micros;
  }

  /** Wall milliseconds until the simulated time reaches `micros` at the current speed: 0 when due, Infinity while held. */
  dueInMs(micros: number): number {
    if (this.rate === 'max') return this.flowing ? 0 : Number.POSITIVE_INFINITY;
    if (!this.flowing) return Number.POSITIVE_INFINITY;
    const wait = (micros - this.simAnchor) / 1000 / this.rate - (performance.now() - this.wallAnchor);
    return wait > 0 ? wait : 0;
  }

  /** Time flows (play), or holds where it is (paused, finished, not started). */
  run(flowing: boolean): void {
    if (flowing === this.flowing) return;
    this.reanchor(this.simulatedMicros());
    this.flowing = flowing;
  }

  setSpeed(speed: Speed): void {
    this.reanchor(this.simulatedMicros());
    this.rate = speed;
  }

  private reanchor(micros: number): void {
    this.simAnchor = micros;
    this.wallAnchor = performance.now();
  }
}
