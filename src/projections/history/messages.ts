// Operator messages, newest first; settlement announcements are messages too.
import type { AdminMessageFact, ExchangeEvent } from '../../events/types.ts';
import type { AdminMessageView } from '../views.ts';

export const DEFAULT_MESSAGE_LIMIT = 50;

export class MessagesProjection {
  // Oldest first, so appending is O(1); reads walk it backwards.
  private readonly log: AdminMessageView[] = [];

  get count(): number {
    return this.log.length;
  }

  /** The `limit` newest messages, newest first. */
  newest(limit = DEFAULT_MESSAGE_LIMIT): AdminMessageView[] {
    const out: AdminMessageView[] = [];
    for (let i = this.log.length - 1; i >= 0 && out.length < limit; i--) out.push(this.log[i] as AdminMessageView);
    return out;
  }


  /** Oldest first. */
  snapshot(): AdminMessageView[] {
    return this.log.slice();
  }

  restore(messages: readonly AdminMessageView[]): void {
    // One at a time: push(...messages) passes every message as an argument, and past ~125,000 of them
    // (a long competition's announcements) the call overflowed the stack, failing every start.
    for (const message of messages) this.log.push(message);
  }

  apply(event: ExchangeEvent): void {
    const posted = postedMessage(event);
    if (posted !== null) this.log.push(posted);
  }
}

/** The message an event posted, if it posted one. */
export function postedMessage(event: ExchangeEvent): AdminMessageView | null {
  if (event.type === 'AdminMessagePosted') return messageView(event.data, event.time);
  if (event.type === 'MarketSettled') return messageView(event.data.announcement, event.time);
  return null;
}

function messageView(m: AdminMessageFact, time: string): AdminMessageView {
  return { message_id: m.message_id, target_username: m.target_username, target_trader_id: m.target_trader_id, market: m.market, level: m.level, title: m.title, body: m.body, created_at: time };
}
