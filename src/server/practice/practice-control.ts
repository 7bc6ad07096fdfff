// What the doors (GET /api/v1/practice and its steering routes, /health, the dashboard) see of a
// practice exchange: the state of the recording's play and the three things an operator may change.
import type { PracticeReport } from './practice-report.ts';

/** Time runs this many times faster than the wall clock, or `max`: every recorded command at once, no waiting. */
export type Speed = number | 'max';

export type PracticeState = 'running' | 'paused' | 'finished';

export interface PracticeStatus {
  readonly state: PracticeState;
  readonly speed: Speed;
  /** The simulated time (RFC 3339 UTC with microseconds): the recorded time the play has reached. */
  readonly simulated_time: string;
  /** Recorded commands played so far, those skipped as diverged included. */
  readonly commands_replayed: number;
  readonly commands_total: number;
  readonly diverged: number;
  /** Once finished: the report (docs/practice.md). */
  readonly report?: PracticeReport;
}

export interface PracticeControl {
  status(): PracticeStatus;
  /** Holds the play and the simulated clock (nothing happens when already paused). */
  pause(): void;
  /** Plays on from where it was held. */
  resume(): void;
  setSpeed(speed: Speed): void;
}

/** The largest speed the steering accepts: a day of recording in under a second. */
export const MAX_SPEED = 1_000_000;
