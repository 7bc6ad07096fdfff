// The service around the exchange: it admits commands one at a time, stamps them (time and new ids) at
// admission, and with capacity decides each in its caller's own tick (arrival order). While the
// persistence writer's queue is full, commands wait in a fair queue (src/server/admission/fair-queue.ts:
// operators first, then round robin across traders, bounded per trader). It holds
// back everything a command publishes (market data, private events, operator messages) until the
// command may be acknowledged, so a caller's reply always goes out before the events it caused.
import { Subject } from 'rxjs';
import { DomainError, isDomainError, Refusal } from '../commands/errors.ts';
import type { Exchange } from '../commands/exchange.ts';
import type { Command } from '../commands/types.ts';
import type { ExchangeEvent } from '../events/types.ts';
import type { RecordedEvent } from '../events/upcasters/upcast.ts';
import type { L3Delta } from '../projections/market-data.ts';
import { postedMessage } from '../projections/history/messages.ts';
import type { PrivateEvent } from '../projections/private-feed.ts';
import type { AdminMessageView } from '../projections/views.ts';
import { FairQueue } from './admission/fair-queue.ts';
import type { AdmissionClock, Stamp } from './clock.ts';
import type { Persistence } from './persistence/persistence.ts';

export type Publication =
  | { readonly kind: 'delta'; readonly delta: L3Delta }
  | { readonly kind: 'private'; readonly event: PrivateEvent }
  | { readonly kind: 'admin_message'; readonly message: AdminMessageView }
  | { readonly kind: 'account_resync' }
  /**
   * Sessions of the trader are to be closed: every one (`all`: the trader was disabled), or those whose
   * key no longer authenticates (a key rotated away or revoked; the trader's other keys' sessions stay).
   */
  | { readonly kind: 'revoked'; readonly trader_id: string; readonly reason: string; readonly all: boolean }
  | { readonly kind: 'event'; readonly event: ExchangeEvent };

export interface ServiceOptions {
  /** Replies wait until the command's event is durable. */
  readonly durableAcks: boolean;
  /** Told of every command decided, accepted or refused (the metrics). */
  readonly observer?: CommandObserver;
  /**
   * Cluster mode: asked before each command; a refusal (a follower, a standby, a fenced leader) is
   * thrown instead of admitting. Absent: always admitting.
   */
  readonly admission?: AdmissionGate;
  /** ADMISSION_QUEUE_PER_TRADER: a trader's commands waiting for the engine before admission_queue_full. */
  readonly queuePerTrader?: number;
  /**
   * Publish book deltas and private events from the start (default true). With WS_FANOUT=process the
   * main process routes no frames itself: its service publishes only events (which the fan-out child
   * folds into deltas and private events of its own) until a gateway in this process calls attachFeeds.
   */
  readonly feeds?: boolean;
}

export interface AdmissionGate {
  /** null while this node admits commands, else the error to answer with. */
  refusal(): DomainError | null;
}

interface Waiter {
  admit(): Promise<void>;
  fail(err: unknown): void;
}

export interface CommandObserver {
  commandAccepted(type: Command['type']): void;
  commandRefused(type: Command['type'], code: string): void;
}

const NO_OBSERVER: CommandObserver = { commandAccepted() {}, commandRefused() {} };

export class ExchangeService {
  readonly exchange: Exchange;
  readonly persistence: Persistence;
  /** Everything accepted commands publish, in order, once each command may be acknowledged. */
  readonly publications$ = new Subject<Publication>();
  private readonly clock: AdmissionClock;
  private readonly durableAcks: boolean;
  private readonly admission: AdmissionGate | null;
  private readonly observer: CommandObserver;
  private outbox: Publication[] | null = null;
  // Commands wait here, taken fairly across traders (operators first), while the writer's queue is
  // full or admission is held.
  private readonly queue: FairQueue<Waiter>;
  private pumping = false;
  private held: Promise<void> | null = null;
  private closed = false;
  private feedsAttached = false;

  constructor(exchange: Exchange, persistence: Persistence, clock: AdmissionClock, options: ServiceOptions) {
    this.exchange = exchange;
    this.persistence = persistence;
    this.clock = clock;
    this.durableAcks = options.durableAcks;
    this.admission = options.admission ?? null;
    this.queue = new FairQueue<Waiter>(options.queuePerTrader ?? 1024);
    this.observer = options.observer ?? NO_OBSERVER;
    const state = exchange.state;
    if (options.feeds !== false) this.attachFeeds();
    state.events$.subscribe((event) => {
      const outbox = this.outbox;
      if (outbox === null) return;
      outbox.push({ kind: 'event', event });
      const message = postedMessage(event);
      if (message !== null) outbox.push({ kind: 'admin_message', message });
      if (event.type === 'TradingReset') outbox.push({ kind: 'account_resync' });
      if (event.type === 'ApiKeyRotated') outbox.push({ kind: 'revoked', trader_id: event.data.trader_id, reason: 'api key rotated', all: false });
      if (event.type === 'ApiKeyRevoked') outbox.push({ kind: 'revoked', trader_id: event.data.trader_id, reason: 'api key revoked', all: false });
      if (event.type === 'TraderDisabled') outbox.push({ kind: 'revoked', trader_id: event.data.trader_id, reason: 'trader disabled', all: true });
    });
  }

  get state() {
    return this.exchange.state;
  }

  /**
   * Publishes book deltas and private events from now on (once; later calls do nothing). Until then the
   * state builds neither: with no listener and no ring, the feeds only count their sequences.
   */
  attachFeeds(): void {
    if (this.feedsAttached) return;
    this.feedsAttached = true;
    const state = this.exchange.state;
    state.marketData.deltas$.subscribe((delta) => this.outbox?.push({ kind: 'delta', delta }));
    state.privateFeed.events$.subscribe((event) => this.outbox?.push({ kind: 'private', event }));
  }

  /**
   * Resolves once the event with this seq is durable, when replies wait for durability (at once
   * otherwise): what a duplicate submission's answer waits for (its first order's submission).
   */
  async whenDurable(seq: number): Promise<void> {
    if (!this.durableAcks) return;
    await this.persistence.durable(seq);
  }

  /** Stops admitting commands (shutdown); later calls fail with service_unavailable. */
  close(): void {
    this.closed = true;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Why this node does not admit commands right now (cluster mode), or null. */
  refusal(): DomainError | null {
    return this.admission === null ? null : this.admission.refusal();
  }

  /**
   * A follower's fold of one event the leader committed: applied by the same projections, and what it
   * changes is published exactly as an admitted command's would be (book deltas with the leader's
   * sequences, private events, operator messages).
   */
  applyReplicated(event: RecordedEvent): void {
    const outbox: Publication[] = [];
    this.outbox = outbox;
    try {
      this.exchange.fold(event);
    } finally {
      this.outbox = null;
    }
    for (const p of outbox) this.publications$.next(p);
  }

  /**
   * Admits one command. `build` receives the admission stamp and returns the command. Throws the
   * DomainError of a refusal (nothing changed, nothing published). `reply` runs once the command may be
   * acknowledged and before its publications go out. `view`, when given, runs right after the command
   * is applied, before any other command, and its result is what `reply` receives: with durable acks
   * the reply waits for the commit, and by then later commands may have changed the state.
   */
  async execute<V = undefined>(
    build: (stamp: Stamp) => Command,
    reply?: (event: ExchangeEvent, view: V) => void,
    view?: (event: ExchangeEvent) => V,
    trader: string | null = null,
  ): Promise<ExchangeEvent> {
    if (this.admissibleNow()) return this.admit(build, reply, view);
    return new Promise<ExchangeEvent>((resolve, reject) => {
      const queued = this.queue.push(trader, { admit: () => this.admit(build, reply, view).then(resolve, reject), fail: reject });
      if (!queued) {
        reject(new DomainError('admission_queue_full', `too many of your commands are waiting for the engine (at most ${this.queue.perTrader}); retry shortly`));
        return;
      }
      void this.pump();
    });
  }

  /**
   * execute's synchronous form, for callers that answer in their own tick (the HTTP fast path): with
   * nothing waiting before it, admission not held, room in the writer and no durable acks, the command
   * is admitted, `reply` called and the publications released before this returns, exactly as execute
   * does then, and its event is returned; a refusal is thrown. Otherwise nothing happens and it returns
   * null: the command would have to wait, so the caller calls execute.
   */
  executeNow<V = undefined>(build: (stamp: Stamp) => Command, reply?: (event: ExchangeEvent, view: V) => void, view?: (event: ExchangeEvent) => V): ExchangeEvent | null {
    if (this.durableAcks || !this.admissibleNow()) return null;
    const { event, seen, outbox } = this.decide(build, view);
    this.release(event, seen, outbox, reply);
    return event;
  }

  /** Nothing waits before a new command, admission is not held and the writer has room. */
  private admissibleNow(): boolean {
    if (this.queue.size !== 0 || this.held !== null) return false;
    const wait = this.persistence.capacity();
    if (wait === null) return true;
    // Capacity is asked again once the command's turn comes; this answer is only a signal, and its
    // rejection (a stopped writer) must not go unhandled, which would end the process.
    wait.catch(() => {});
    return false;
  }

  /** Acknowledges a command (its reply) and then sends out what it changed. */
  private release<V>(event: ExchangeEvent, seen: V, outbox: readonly Publication[], reply?: (event: ExchangeEvent, view: V) => void): void {
    reply?.(event, seen);
    for (const p of outbox) this.publications$.next(p);
  }

  /** Whether replies wait for the command's event to be durable (POSTGRES_DURABLE_ACKS). */
  get waitsForDurability(): boolean {
    return this.durableAcks;
  }

  /** Commands waiting for their turn. */
  get queued(): number {
    return this.queue.size;
  }

  /**
   * Holds admission: every command queues (as behind persistence backpressure) until the returned
   * function is called. For tests and benchmarks of fair admission; an operator never needs it.
   */
  holdAdmission(): () => void {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    this.held = held;
    return () => {
      if (this.held === held) this.held = null;
      release();
    };
  }

  // Admits queued commands in the fair queue's order while there is capacity. admit() runs
  // synchronously up to the exchange, so capacity is asked again for each command.
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.queue.size > 0) {
        if (this.held !== null) {
          await this.held;
          continue;
        }
        const wait = this.persistence.capacity();
        if (wait !== null) {
          try {
            await wait;
          } catch (err) {
            // The writer stopped: the command whose turn it is gets the error, as every later one will.
            this.queue.shift()?.fail(err);
          }
          continue;
        }
        void (this.queue.shift() as Waiter).admit();
      }
    } finally {
      this.pumping = false;
    }
  }

  // No await before the exchange runs: with free capacity a command is decided in the caller's own
  // tick, so commands are admitted exactly in the order they arrived.
  private async admit<V>(build: (stamp: Stamp) => Command, reply?: (event: ExchangeEvent, view: V) => void, view?: (event: ExchangeEvent) => V): Promise<ExchangeEvent> {
    const { event, seen, outbox } = this.decide(build, view);
    if (this.durableAcks) {
      try {
        await this.persistence.durable(event.seq);
      } catch (err) {
        // The command is applied in memory but its event could not be made durable (the writer
        // stopped). The caller gets the error; subscribers still get what changed, so every client's
        // book keeps matching the state the service serves from memory.
        for (const p of outbox) this.publications$.next(p);
        throw err;
      }
    }
    this.release(event, seen, outbox, reply);
    return event;
  }

  // Stamps, decides and applies one command, and builds its view; what it publishes is collected, to
  // be released once the command may be acknowledged. Throws a refusal.
  private decide<V>(build: (stamp: Stamp) => Command, view?: (event: ExchangeEvent) => V): { event: ExchangeEvent; seen: V; outbox: Publication[] } {
    if (this.closed) throw new DomainError('service_unavailable');
    const refused = this.admission?.refusal() ?? null;
    if (refused !== null) throw refused;
    const outbox: Publication[] = [];
    this.outbox = outbox;
    let event: ExchangeEvent;
    let command: Command | null = null;
    try {
      command = build(this.clock.stamp());
      const outcome = this.exchange.tryExecute(command);
      if (outcome instanceof Refusal) throw outcome.error();
      event = outcome;
    } catch (err) {
      if (command !== null) this.observer.commandRefused(command.type, isDomainError(err) ? err.code : 'internal');
      throw err;
    } finally {
      this.outbox = null;
    }
    this.observer.commandAccepted(command.type);
    const seen = view === undefined ? (undefined as V) : view(event);
    return { event, seen, outbox };
  }
}
