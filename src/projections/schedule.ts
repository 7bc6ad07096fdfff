// The schedule: timed operator actions, folded from the log. Setting it replaces what is pending; an
// entry is done once an event names it (the action's own event, or ScheduledActionFailed), so a
// restart that folds the log knows exactly which entries are still to run.
import type { ExchangeEvent, ScheduleEntryFact } from '../events/types.ts';

export type ScheduleEntryStatus = 'pending' | 'ran' | 'failed';

export interface ScheduleEntryView extends ScheduleEntryFact {
  readonly status: ScheduleEntryStatus;
  /** The seq of the ScheduleSet event that set it. */
  readonly scheduled_seq: number;
  /** The seq of the event it produced, once done (null while pending). */
  readonly seq: number | null;
  readonly ran_at: string | null;
  /** The refusal, when the action could not run: `code: message`. */
  readonly error: string | null;
}

export interface ScheduleSnapshot {
  readonly pending: ScheduleEntryView[];
  readonly done: ScheduleEntryView[];
}

export class ScheduleProjection {
  // Insertion order: by `at`, then the order the operator gave.
  private pendingEntries = new Map<string, ScheduleEntryView>();
  private readonly doneEntries: ScheduleEntryView[] = [];

  get isEmpty(): boolean {
    return this.pendingEntries.size === 0 && this.doneEntries.length === 0;
  }

  pending(entryId: string): ScheduleEntryView | undefined {
    return this.pendingEntries.get(entryId);
  }

  /** Pending entries in the order they are to run. */
  pendingList(): ScheduleEntryView[] {
    return [...this.pendingEntries.values()];
  }

  /** Done entries, in the order they ran. */
  doneList(): ScheduleEntryView[] {
    return this.doneEntries.slice();
  }

  apply(event: ExchangeEvent): void {
    if (event.type === 'ScheduleSet') {
      const entries = event.data.entries.map((e, i) => ({ e, i }));
      // Stable: entries with the same time run in the order given.
      entries.sort((a, b) => (a.e.at < b.e.at ? -1 : a.e.at > b.e.at ? 1 : a.i - b.i));
      this.pendingEntries = new Map(entries.map(({ e }) => [e.entry_id, { ...e, status: 'pending', scheduled_seq: event.seq, seq: null, ran_at: null, error: null }]));
      return;
    }
    if (event.type === 'ScheduledActionFailed') {
      this.finish(event.data.schedule_entry, event, 'failed', `${event.data.code}: ${event.data.message}`);
      return;
    }
    if ('schedule_entry' in event.data && typeof event.data.schedule_entry === 'string') this.finish(event.data.schedule_entry, event, 'ran', null);
  }

  private finish(entryId: string, event: ExchangeEvent, status: ScheduleEntryStatus, error: string | null): void {
    const entry = this.pendingEntries.get(entryId);
    if (entry === undefined) throw new Error(`schedule: entry ${entryId} is not pending`);
    this.pendingEntries.delete(entryId);
    this.doneEntries.push({ ...entry, status, seq: event.seq, ran_at: event.time, error });
  }

  snapshot(): ScheduleSnapshot {
    return { pending: this.pendingList(), done: this.doneList() };
  }

  restore(s: ScheduleSnapshot | undefined): void {
    if (s === undefined) return;
    this.pendingEntries = new Map(s.pending.map((e) => [e.entry_id, e]));
    // One at a time: spreading a long list as arguments overflows the stack (see messages.ts).
    for (const entry of s.done) this.doneEntries.push(entry);
  }
}
