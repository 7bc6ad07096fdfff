// Number and time display. Prices and quantities are integers; PnL can carry fractions (average entry
// prices), shown with at most two decimals.

const whole = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const money = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
// Fees are exact to four decimals (competition-rules.md): shown with all of them.
const fee = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 4 });

export function fmtInt(n: number | null | undefined): string {
  return n === null || n === undefined ? '–' : whole.format(n);
}

export function fmtMoney(n: number | null | undefined): string {
  return n === null || n === undefined ? '–' : money.format(n);
}

export function fmtFee(n: number | null | undefined): string {
  return n === null || n === undefined ? '–' : fee.format(n);
}

/** A market's rules in a few words: its fees, its position limit, its cap on open orders. */
export function fmtRules(m: { readonly maker_fee_bps: number; readonly taker_fee_bps: number; readonly position_limit: number; readonly max_open_orders: number | null }): string {
  const parts = [`fees ${m.maker_fee_bps}/${m.taker_fee_bps} bps`, `limit ±${whole.format(m.position_limit)}`];
  if (m.max_open_orders !== null) parts.push(`max ${whole.format(m.max_open_orders)} open`);
  return parts.join(' · ');
}

export function fmtSigned(n: number): string {
  return n > 0 ? `+${fmtMoney(n)}` : fmtMoney(n);
}

/** The class that colours a signed number. */
export function signClass(n: number): string {
  return n > 0 ? 'pos' : n < 0 ? 'neg' : '';
}

/** HH:MM:SS of an RFC 3339 timestamp or epoch milliseconds, in the viewer's time zone. */
export function fmtTime(t: string | number): string {
  const d = new Date(t);
  return Number.isNaN(d.getTime()) ? String(t) : d.toLocaleTimeString('en-GB', { hour12: false });
}

export function shortId(id: string): string {
  return id.slice(0, 8);
}
