// The official leaderboard: standings frozen by the operator, each with the seq it was taken at and the
// log's chain hash there, so anyone holding the log can recompute and prove them (replay prove).
import type { EventOf, ExchangeEvent, FrozenLeaderboardFact } from '../../events/types.ts';

export interface OfficialStandingsView extends FrozenLeaderboardFact {
  /** The seq of the LeaderboardFrozen event. */
  readonly seq: number;
  readonly frozen_at: string;
}

/** The standings a LeaderboardFrozen event froze. */
export function officialStandingsView(event: EventOf<'LeaderboardFrozen'>): OfficialStandingsView {
  return { ...event.data, seq: event.seq, frozen_at: event.time };
}

export class OfficialStandings {
  private readonly list: OfficialStandingsView[] = [];
  private readonly labels = new Map<string, OfficialStandingsView>();

  get isEmpty(): boolean {
    return this.list.length === 0;
  }

  /** Oldest first. */
  all(): readonly OfficialStandingsView[] {
    return this.list;
  }

  byLabel(label: string): OfficialStandingsView | undefined {
    return this.labels.get(label);
  }

  apply(event: ExchangeEvent): void {
    if (event.type !== 'LeaderboardFrozen') return;
    this.add(officialStandingsView(event));
  }

  snapshot(): OfficialStandingsView[] {
    return this.list.slice();
  }

  restore(views: readonly OfficialStandingsView[] | undefined): void {
    for (const v of views ?? []) this.add(v);
  }

  private add(view: OfficialStandingsView): void {
    this.list.push(view);
    this.labels.set(view.label, view);
  }
}
