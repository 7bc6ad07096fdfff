// The fan-out child's fold of the events the main process publishes: each one is applied by the
// child's own ExchangeService (applyReplicated), which publishes what it changed to the child's
// gateway exactly as the main process's service would have. Events arrive in seq order; one the
// start snapshot already holds (applied in main, published after the snapshot was taken) is skipped,
// and one that comes early is held until the gap before it is filled.
import type { RecordedEvent } from '../../events/upcasters/upcast.ts';
import type { ExchangeService } from '../service.ts';

// Events held early: on the ordered channel from main none should come early at all, so a backlog of
// this many means one was lost and the gap will never fill. The child then ends (main starts another
// from a fresh snapshot) rather than answer from a state that silently stopped following.
export const MAX_EARLY = 1024;

export class EventFollower {
  private readonly service: ExchangeService;
  private readonly early = new Map<number, RecordedEvent>();

  constructor(service: ExchangeService) {
    this.service = service;
  }

  /** Folds `event` in its turn; throws when the state cannot apply it (the child must then end). */
  push(event: RecordedEvent): void {
    const state = this.service.state;
    if (event.seq <= state.seq) return;
    if (event.seq > state.seq + 1) {
      this.early.set(event.seq, event);
      if (this.early.size > MAX_EARLY) throw new Error(`ws fan-out: event seq ${state.seq + 1} never came (${this.early.size} later ones held)`);
      return;
    }
    this.service.applyReplicated(event);
    if (this.early.size === 0) return;
    for (let next = this.early.get(state.seq + 1); next !== undefined; next = this.early.get(state.seq + 1)) {
      this.early.delete(next.seq);
      this.service.applyReplicated(next);
    }
  }
}
