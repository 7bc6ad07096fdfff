// A practice exchange in this process, on an ephemeral port, quiet: what the CLI runs (practice/cli.ts
// prints its ready line and report), for the tests that look inside it.
import type { Speed } from '../../../src/server/practice/practice-control.ts';
import { startPractice, type Practice, type PracticeOptions } from '../../../practice/practice.ts';
import type { ExchangeEvent } from '../../../src/events/types.ts';
import type { InMemoryEventLog } from '../../../src/events/in-memory-log.ts';

export interface TestPracticeOptions extends Partial<Omit<PracticeOptions, 'speed'>> {
  readonly speed?: Speed;
}

export function practise(file: string, o: TestPracticeOptions = {}): Promise<Practice> {
  return startPractice({ file, part: {}, bind: '127.0.0.1:0', quiet: true, ...o, speed: o.speed ?? 'max', env: { LOG_LEVEL: 'silent', ADMIN_API_TOKEN: 'test-admin-token', ...o.env } });
}

/** The practice exchange's log as it stands. */
export function practiceEvents(practice: Practice): readonly ExchangeEvent[] {
  return (practice.server.context.service.persistence.log as InMemoryEventLog).all();
}

/** Every execution of a log, in order: who took from whom, where, which side, at what price, how much. */
export function fillsOf(events: readonly ExchangeEvent[]): string[] {
  const out: string[] = [];
  for (const e of events) {
    if (e.type !== 'OrderSubmitted') continue;
    const o = e.data.order;
    for (const f of e.data.fills) out.push(`${o.trader_id} ${o.side} ${o.market} ${f.price} x${f.quantity} from ${f.maker_trader_id} (${f.maker_order_id})`);
  }
  return out;
}
