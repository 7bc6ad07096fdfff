// What the replay prints: the state at a point of the log, as JSON or as CSV, one view at a time.
import type { ExchangeState } from '../src/projections/exchange-state.ts';
import type { HistoryIndex } from '../src/projections/history/history-index.ts';
import { stateHash } from '../src/projections/state-hash.ts';

export const VIEWS = ['leaderboard', 'positions', 'open-orders', 'fills', 'markets'] as const;
export type View = (typeof VIEWS)[number];

export function rows(state: ExchangeState, history: HistoryIndex, view: View): Record<string, unknown>[] {
  const traders = [...state.traders.all()].sort((a, b) => (a.username < b.username ? -1 : a.username > b.username ? 1 : 0));
  switch (view) {
    case 'leaderboard':
      return state.leaderboard.at(state.seq).map((r) => ({ ...r }));
    case 'positions':
      return traders.flatMap((t) => state.positions.viewsOf(t.trader_id).map((p) => ({ trader_id: t.trader_id, username: t.username, ...p })));
    case 'open-orders':
      return traders.flatMap((t) => state.books.openOrders(t.trader_id).map((o) => ({ username: t.username, ...o })));
    case 'fills': {
      // Each fill once, with both sides named and each side's fee (a fill between one trader's own
      // orders shows both sides' fees together as the taker's, as the API shows it to that trader).
      const byId = new Map<string, Record<string, unknown>>();
      for (const t of traders) {
        for (const f of history.fills.of(t.trader_id)) {
          const { fee, liquidity, ...fill } = f;
          const row = byId.get(f.fill_id) ?? { ...fill, maker_fee: 0, taker_fee: 0 };
          row[liquidity === 'maker' ? 'maker_fee' : 'taker_fee'] = fee;
          byId.set(f.fill_id, row);
        }
      }
      return [...byId.values()].sort((a, b) => (String(a['occurred_at']) + String(a['fill_id']) < String(b['occurred_at']) + String(b['fill_id']) ? -1 : 1));
    }
    case 'markets':
      return state.markets.list().map((m) => ({ ...m }));
  }
}

/** `chainHash`: the log's at the state's seq; the state hash printed is the one the server publishes. */
export function stateJson(state: ExchangeState, history: HistoryIndex, chainHash: string, view: View | 'all'): unknown {
  const head = { seq: state.seq, time: state.time || null, state_hash: stateHash(state, chainHash), chain_hash: chainHash };
  if (view !== 'all') return { ...head, [view]: rows(state, history, view) };
  const out: Record<string, unknown> = { ...head };
  for (const v of VIEWS) out[v.replace('-', '_')] = rows(state, history, v);
  out['controls'] = state.markets.controls;
  return out;
}

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function toCsv(records: Record<string, unknown>[], header?: string[]): string {
  const columns = header ?? [...new Set(records.flatMap((r) => Object.keys(r)))];
  const lines = [columns.join(',')];
  for (const r of records) lines.push(columns.map((c) => csvCell(r[c])).join(','));
  return lines.join('\n') + '\n';
}
