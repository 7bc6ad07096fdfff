// The service around the exchange: it admits commands one at a time in arrival order, stamps them
// (time and new ids) at admission, waits for the persistence writer when its queue is full, and holds
// back everything a command publishes (market data, private events, operator messages) until the
// command may be acknowledged, so a caller's reply always goes out before the events it caused.
import { Subject } from 'rxjs';
import { DomainError } from '../commands/errors.ts';
import type { Exchange } from '../commands/exchange.ts';
import type { Command } from '../commands/types.ts';
import type { ExchangeEvent } from '../events/types.ts';
import type { RecordedEvent } from '../events/upcasters/upcast.ts';
import type { L3Delta } from '../projections/market-data.ts';
import { MessagesProjection } from '../projections/messages.ts';
import type { PrivateEvent } from '../projections/private-feed.ts';
import type { AdminMessageView } from '../projections/views.ts';
import type { AdmissionClock, Stamp } from './clock.ts';
import type { Persistence } from './persistence/persistence.ts';

export type Publication =
  | { readonly kind: 'delta'; readonly delta: L3Delta }
  | { readonly kind: 'private'; readonly event: PrivateEvent }
  | { readonly kind: 'admin_message'; readonly message: AdminMessageView }
  | { readonly kind: 'account_resync' }
  /** The trader's key was rotated or the trader disabled: its WebSocket sessions are to be closed. */
  | { readonly kind: 'revoked'; readonly trader_id: string; readonly reason: string }
  | { readonly kind: 'event'; readonly event: ExchangeEvent };

export interface ServiceOptions {
  /** Replies wait until the command's event is durable. */
  readonly durableAcks: boolean;
  /**
   * Cluster mode: asked before each command; a refusal (a follower, a standby, a fenced leader) is
   * thrown instead of admitting. Absent: always admitting.
   */
  readonly admission?: AdmissionGate;
}

export interface AdmissionGate {
  /** null while this node admits commands, else the error to answer with. */
  refusal(): DomainError | null;
}

export class ExchangeService {
  readonly exchange: Exchange;
  readonly persistence: Persistence;
  /** Everything accepted commands publish, in order, once each command may be acknowledged. */
  readonly publications$ = new Subject<Publication>();
  private readonly clock: AdmissionClock;
  private readonly durableAcks: boolean;
  private readonly admission: AdmissionGate | null;
  private outbox: Publication[] | null = null;
  // Commands wait here, in arrival order, while the writer's queue is full.
  private gate: Promise<void> = Promise.resolve();
  private closed = false;
  private waiting = 0;

  constructor(exchange: Exchange, persistence: Persistence, clock: AdmissionClock, options: ServiceOptions) {
    this.exchange = exchange;
    this.persistence = persistence;
    this.clock = clock;
    this.durableAcks = options.durableAcks;
    this.admission = options.admission ?? null;
    const state = exchange.state;
    state.marketData.deltas$.subscribe((delta) => this.outbox?.push({ kind: 'delta', delta }));
    state.privateFeed.events$.subscribe((event) => this.outbox?.push({ kind: 'private', event }));
    state.events$.subscribe((event) => {
      const outbox = this.outbox;
      if (outbox === null) return;
      outbox.push({ kind: 'event', event });
      const message = MessagesProjection.posted(event);
      if (message !== null) outbox.push({ kind: 'admin_message', message });
      if (event.type === 'TradingReset') outbox.push({ kind: 'account_resync' });
      if (event.type === 'ApiKeyRotated') outbox.push({ kind: 'revoked', trader_id: event.data.trader_id, reason: 'api key rotated' });
      if (event.type === 'TraderDisabled') outbox.push({ kind: 'revoked', trader_id: event.data.trader_id, reason: 'trader disabled' });
    });
  }

  get state() {
    return this.exchange.state;
  }

  /**
   * Resolves once the event that submitted this order is durable, when replies wait for durability
   * (at once otherwise): what a duplicate submission's answer waits for.
   */
  async whenDurable(orderId: string): Promise<void> {
    if (!this.durableAcks) return;
    const order = this.exchange.state.books.anyOrder(orderId);
    if (order !== undefined) await this.persistence.durable(order.seq);
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
  async execute<V = undefined>(build: (stamp: Stamp) => Command, reply?: (event: ExchangeEvent, view: V) => void, view?: (event: ExchangeEvent) => V): Promise<ExchangeEvent> {
    const wait = this.persistence.capacity();
    if (wait !== null || this.waiting > 0) {
      // Capacity is asked again once this command's turn comes; this first answer is only a signal,
      // and its rejection (a stopped writer) must not go unhandled, which would end the process.
      wait?.catch(() => {});
      // Queue behind earlier waiters so commands are admitted in arrival order.
      const previous = this.gate;
      let release!: () => void;
      this.gate = new Promise<void>((resolve) => (release = resolve));
      this.waiting++;
      try {
        await previous;
        let more = this.persistence.capacity();
        while (more !== null) {
          await more;
          more = this.persistence.capacity();
        }
      } finally {
        this.waiting--;
        release();
      }
    }
    return this.admit(build, reply, view);
  }

  // No await before the exchange runs: with free capacity a command is decided in the caller's own
  // tick, so commands are admitted exactly in the order they arrived.
  private async admit<V>(build: (stamp: Stamp) => Command, reply?: (event: ExchangeEvent, view: V) => void, view?: (event: ExchangeEvent) => V): Promise<ExchangeEvent> {
    if (this.closed) throw new DomainError('service_unavailable');
    const refused = this.admission?.refusal() ?? null;
    if (refused !== null) throw refused;
    const outbox: Publication[] = [];
    this.outbox = outbox;
    let event: ExchangeEvent;
    try {
      event = this.exchange.execute(build(this.clock.stamp()));
    } finally {
      this.outbox = null;
    }
    const seen = view === undefined ? (undefined as V) : view(event);
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
    reply?.(event, seen);
    for (const p of outbox) this.publications$.next(p);
    return event;
  }
}
