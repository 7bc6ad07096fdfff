// The labels of the official standings frozen so far, with the seq of each freeze: live state, since a
// label is used once (decide refuses a second freeze under it). The standings themselves, every
// trader's row as it stood, are history: the LeaderboardFrozen event holds them, and the history serves
// them (src/server/history/).
import type { ExchangeEvent } from '../events/types.ts';

export class OfficialLabels {
  private readonly labels = new Map<string, number>();

  get isEmpty(): boolean {
    return this.labels.size === 0;
  }

  get size(): number {
    return this.labels.size;
  }

  /** The seq of the freeze under this label, or undefined. */
  seqOf(label: string): number | undefined {
    return this.labels.get(label);
  }

  apply(event: ExchangeEvent): void {
    if (event.type === 'LeaderboardFrozen') this.labels.set(event.data.label, event.seq);
  }

  /** In the order they were frozen. */
  snapshot(): [string, number][] {
    return [...this.labels.entries()];
  }

  restore(labels: readonly (readonly [string, number])[]): void {
    for (const [label, seq] of labels) this.labels.set(label, seq);
  }
}
