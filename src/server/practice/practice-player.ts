// Plays the recording into a practice exchange: every recorded command of the played part is submitted
// again through the service (the exchange's ordinary path: the same admission, rules, matching, log and
// publications as a bot's command) at its recorded time scaled by the speed. One loop, one timer at a
// time: at `max`, or whenever commands are due, it plays them back to back for a slice of the event
// loop (SLICE_MS) and then yields, so a bot's requests are served between slices; commands arrive in
// batches from the reader, which reads ahead. A recorded command the practice world refuses is
// skipped and counted as diverged, as is one whose outcome differs; every played event is also folded
// into the recording's own world, whose leaderboard at the end gives the recorded figures of the report.
import { DuplicateSubmission } from '../../commands/duplicate-submission.ts';
import { DomainError, isDomainError } from '../../commands/errors.ts';
import type { Exchange } from '../../commands/exchange.ts';
import type { Command } from '../../commands/types.ts';
import { timeCode } from '../../events/time-code.ts';
import type { ExchangeEvent } from '../../events/types.ts';
import { upcast, type RecordedEvent } from '../../events/upcasters/upcast.ts';
import { parseMicros, type Stamp } from '../clock.ts';
import type { History } from '../history/history.ts';
import { checkEarlier, earlierOrder, StaleLookup } from '../history/order-lookups.ts';
import type { ExchangeService } from '../service.ts';
import type { PracticeControl, PracticeState, PracticeStatus, Speed } from './practice-control.ts';
import { practiceReport, type PracticeReport } from './practice-report.ts';
import { isSeatCommand, outcomeDiffers, recordedCommand, type Seat } from './recorded-command.ts';
import type { SimulatedClock } from './simulated-clock.ts';

/** How long one run of due commands may hold the event loop before a bot's requests get their turn. */
const SLICE_MS = 10;

export interface PlayerOptions {
  readonly service: ExchangeService;
  readonly clock: SimulatedClock;
  readonly history: History;
  /** The played part of the recording, in order. */
  readonly recording: AsyncIterable<readonly RecordedEvent[]>;
  /** Recorded commands to play (the seat's own not counted). */
  readonly total: number;
  readonly speed: Speed;
  readonly seat: Seat | null;
  /** The recording's own world at the start of the played part; every played event is folded into it. */
  readonly recorded: Exchange;
  /** The team's trader. */
  readonly you: string;
}

export class PracticePlayer implements PracticeControl {
  /** Resolves with the report once the recording has played to its end. */
  readonly finished: Promise<PracticeReport>;
  private readonly o: PlayerOptions;
  private state: PracticeState = 'paused';
  private replayed = 0;
  private diverged = 0;
  private report: PracticeReport | null = null;
  private started = false;
  private wake: (() => void) | null = null;
  private done!: (report: PracticeReport) => void;
  private failed!: (err: unknown) => void;

  constructor(options: PlayerOptions) {
    this.o = options;
    options.clock.setSpeed(options.speed);
    this.finished = new Promise<PracticeReport>((resolve, reject) => {
      this.done = resolve;
      this.failed = reject;
    });
    // The caller awaits `finished`; a failure must not also go unhandled meanwhile.
    this.finished.catch(() => {});
  }

  /** Starts the play (held, when `paused`, until resume). */
  start(paused = false): void {
    if (this.started) throw new Error('practice: the player starts once');
    this.started = true;
    if (!paused) this.resume();
    this.loop().then(
      () => this.finish(),
      (err: unknown) => {
        this.o.clock.run(false);
        this.failed(err);
      },
    );
  }

  status(): PracticeStatus {
    const status = { state: this.state, speed: this.o.clock.speed, simulated_time: this.o.clock.now(), commands_replayed: this.replayed, commands_total: this.o.total, diverged: this.diverged };
    return this.report === null ? status : { ...status, report: this.report };
  }

  pause(): void {
    this.mustBePlaying();
    this.state = 'paused';
    this.o.clock.run(false);
    this.poke();
  }

  resume(): void {
    this.mustBePlaying();
    this.state = 'running';
    this.o.clock.run(true);
    this.poke();
  }

  setSpeed(speed: Speed): void {
    this.mustBePlaying();
    this.o.clock.setSpeed(speed);
    this.poke();
  }

  private mustBePlaying(): void {
    if (this.state === 'finished') throw new DomainError('practice_finished');
  }

  private poke(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  /** Waits this long (Infinity: until poked), or until pause, resume or a change of speed. */
  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = Number.isFinite(ms) ? setTimeout(() => this.poke(), Math.max(1, Math.ceil(ms))) : null;
      this.wake = () => {
        if (timer !== null) clearTimeout(timer);
        resolve();
      };
    });
  }

  private async loop(): Promise<void> {
    const clock = this.o.clock;
    const reader = this.o.recording[Symbol.asyncIterator]();
    let batch: readonly RecordedEvent[] = [];
    let i = 0;
    for (;;) {
      if (i >= batch.length) {
        const next = await reader.next();
        if (next.done === true) return;
        batch = next.value;
        i = 0;
        continue;
      }
      if (this.state === 'paused') {
        await this.sleep(Number.POSITIVE_INFINITY);
        continue;
      }
      const first = batch[i] as RecordedEvent;
      const micros = microsOf(first.time);
      clock.limitTo(micros);
      const wait = clock.dueInMs(micros);
      if (wait > 0) {
        await this.sleep(wait);
        continue;
      }
      // Every command due now, back to back, for one slice; then the event loop's other work.
      const until = performance.now() + SLICE_MS;
      for (let n = 1; i < batch.length && this.state === 'running'; n++) {
        const event = batch[i] as RecordedEvent;
        const at = event === first ? micros : microsOf(event.time);
        if (at !== micros) {
          clock.limitTo(at);
          if (clock.dueInMs(at) > 0) break;
        }
        i++;
        const later = this.play(event, at);
        if (later !== undefined) await later;
        if ((n & 63) === 0 && performance.now() > until) break;
      }
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  private finish(): void {
    const { clock, service, recorded } = this.o;
    // Time holds at the end of the played part; a bot trading on gets stamps just after it.
    clock.run(false);
    clock.limitTo(Number.POSITIVE_INFINITY);
    this.state = 'finished';
    this.report = practiceReport(service.state.leaderboard.at(service.state.seq), recorded.state.leaderboard.at(recorded.state.seq), this.o.you, this.diverged);
    this.done(this.report);
  }

  /** Plays one recorded event; a promise only when the service makes the command wait (never in memory). */
  private play(event: RecordedEvent, micros: number): Promise<void> | undefined {
    const current = upcast(event);
    const { service, seat } = this.o;
    if (isSeatCommand(current, seat?.traderId ?? null)) {
      this.o.recorded.fold(event);
      return undefined;
    }
    this.o.clock.pin(micros);
    const build = this.builder(current);
    if (build instanceof Promise) return build.then((b) => this.submitLater(event, current, b));
    let produced: ExchangeEvent | null;
    try {
      produced = service.executeNow(build);
    } catch (err) {
      if (!isRefusal(err)) throw err;
      this.account(event, current, null);
      return undefined;
    }
    if (produced === null) return this.submitLater(event, current, build);
    this.account(event, current, produced);
    return undefined;
  }

  private async submitLater(event: RecordedEvent, current: ExchangeEvent, build: (stamp: Stamp) => Command): Promise<void> {
    let produced: ExchangeEvent | null = null;
    try {
      produced = await this.o.service.execute(build);
    } catch (err) {
      if (!isRefusal(err)) throw err;
    }
    this.account(event, current, produced);
  }

  private account(event: RecordedEvent, current: ExchangeEvent, produced: ExchangeEvent | null): void {
    this.replayed++;
    if (produced === null || outcomeDiffers(current, produced)) this.diverged++;
    this.o.recorded.fold(event);
  }

  /**
   * The command's builder, stamped with the recorded time. A submission with a client order id looks
   * the id up first, as the order routes do (src/server/history/order-lookups.ts).
   */
  private builder(current: ExchangeEvent): ((stamp: Stamp) => Command) | Promise<(stamp: Stamp) => Command> {
    const { service, seat, history } = this.o;
    const world = { seq: () => service.state.seq, headHash: () => service.persistence.headHash() };
    const stamped = (s: Stamp): Stamp => ({ time: current.time, uuid: s.uuid });
    if (current.type !== 'OrderSubmitted' || current.data.order.client_order_id === null) return (s) => recordedCommand(current, stamped(s), world, seat);
    const { trader_id, client_order_id } = current.data.order;
    const withLookup = (lookup: Parameters<typeof checkEarlier>[1]) => (s: Stamp): Command => {
      const command = recordedCommand(current, stamped(s), world, seat);
      const earlier = checkEarlier(service.state, lookup);
      return earlier === undefined || command.type !== 'SubmitOrder' ? command : { ...command, earlier_order: earlier };
    };
    const lookup = earlierOrder(service.state, history, trader_id, client_order_id);
    return lookup instanceof Promise ? lookup.then(withLookup) : withLookup(lookup);
  }
}

function isRefusal(err: unknown): boolean {
  return isDomainError(err) || err instanceof DuplicateSubmission || err instanceof StaleLookup;
}

function microsOf(time: string): number {
  const code = timeCode(time);
  return Number.isNaN(code) ? parseMicros(time) : code;
}
