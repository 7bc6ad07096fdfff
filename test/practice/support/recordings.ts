// Recordings for the practice and anonymized-export tests: logs made by the real engine (random
// sessions of test/core/simulation.ts, or commands given one by one), written as `replay export` writes
// them (canonical NDJSON with chain hashes) or as GET /api/v1/admin/events answers (no hashes).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { Exchange } from '../../../src/commands/exchange.ts';
import type { Command, CommandBody } from '../../../src/commands/types.ts';
import { canonicalJson } from '../../../src/events/canonical.ts';
import { chainHash, GENESIS_HASH } from '../../../src/events/hash.ts';
import type { InMemoryEventLog } from '../../../src/events/in-memory-log.ts';
import type { ExchangeEvent } from '../../../src/events/types.ts';
import { formatMicros } from '../../../src/server/clock.ts';
import { actionArb, Simulation } from '../../core/simulation.ts';

export const TMP = mkdtempSync(join(tmpdir(), 'practice-test-'));
let files = 0;

export function eventsOf(exchange: Exchange): ExchangeEvent[] {
  return (exchange.log as InMemoryEventLog).all().map((e) => JSON.parse(JSON.stringify(e)) as ExchangeEvent);
}

/** Writes the events as NDJSON (with their chain hashes unless `hashes` is false) to a new file. */
export function writeLog(events: readonly ExchangeEvent[], hashes = true): string {
  let previous = GENESIS_HASH;
  let text = '';
  for (const e of events) {
    previous = chainHash(previous, e);
    text += canonicalJson(hashes ? { ...e, hash: previous } : e) + '\n';
  }
  const path = join(TMP, `log-${++files}.ndjson`);
  writeFileSync(path, text);
  return path;
}

/** A random session of the property generators (seeded), its events. */
export function randomSession(seed: number, actions = 200): Simulation {
  const sim = new Simulation();
  const [list] = fc.sample(fc.array(actionArb, { minLength: actions, maxLength: actions }), { seed, numRuns: 1 });
  for (const a of list ?? []) sim.step(a);
  return sim;
}

/** Commands run one by one, each `stepMs` after the last from 2026-06-06T09:00:00Z; refusals throw. */
export class Recorder {
  readonly exchange = new Exchange();
  private micros = Date.UTC(2026, 5, 6, 9, 0, 0) * 1000;
  private ids = 0;
  private readonly stepMs: number;

  constructor(stepMs = 100) {
    this.stepMs = stepMs;
  }

  run(body: CommandBody, afterMs = this.stepMs): ExchangeEvent {
    this.micros += Math.round(afterMs * 1000);
    return this.exchange.execute({ ...body, time: formatMicros(this.micros) } as Command);
  }

  id(): string {
    return `cccccccc-0000-4000-8000-${(++this.ids).toString(16).padStart(12, '0')}`;
  }

  trader(username: string): string {
    const trader_id = this.id();
    this.run({ type: 'ProvisionTrader', username, trader_id, api_key_hash: `${'a'.repeat(56)}${this.ids.toString(16).padStart(8, '0')}` });
    return trader_id;
  }

  market(id: string): void {
    const [base = '', quote = ''] = id.split('-');
    this.run({ type: 'UpsertMarket', market: { market_id: id, base_asset: base, quote_asset: quote, tick_size: 1, min_order_quantity: 1, reference_price: 100, enabled: true } });
  }

  order(trader: string, side: 'BUY' | 'SELL', price: number, quantity: number, market = 'BTC-USD', afterMs?: number): string {
    const order_id = this.id();
    this.run(
      { type: 'SubmitOrder', trader_id: trader, market, side, price, quantity, order_type: 'LIMIT', time_in_force: 'GTC', self_trade_prevention: 'NONE', client_order_id: null, order_id, fill_id_seed: this.id() },
      afterMs,
    );
    return order_id;
  }

  get events(): ExchangeEvent[] {
    return eventsOf(this.exchange);
  }
}
