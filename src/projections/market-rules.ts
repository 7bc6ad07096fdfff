// The rules of a market (competition-rules.md): its maker and taker fees, its position limit and its
// cap on open orders, with the defaults every market had before they could be set. A definition in the
// log names only the rules that differ from these (marketRules reads them back), and the state hash
// leaves the defaults out (hashedMarket), so a log that never set a rule reads and hashes as before.
import type { MarketRules } from '../events/types.ts';
import type { MarketView } from './views.ts';

/** The worst-case net position bound of a market that sets none (exchange-service.md: +/-1000). */
export const DEFAULT_POSITION_LIMIT = 1000;

/** A market's rules with every default filled in, as its views show them. */
export interface EffectiveRules {
  readonly maker_fee_bps: number;
  readonly taker_fee_bps: number;
  readonly position_limit: number;
  readonly max_open_orders: number | null;
}

export const DEFAULT_RULES: EffectiveRules = Object.freeze({ maker_fee_bps: 0, taker_fee_bps: 0, position_limit: DEFAULT_POSITION_LIMIT, max_open_orders: null });

/** The rules a definition sets, defaults for those it leaves out. */
export function effectiveRules(def: MarketRules): EffectiveRules {
  return {
    maker_fee_bps: def.maker_fee_bps ?? 0,
    taker_fee_bps: def.taker_fee_bps ?? 0,
    position_limit: def.position_limit ?? DEFAULT_POSITION_LIMIT,
    max_open_orders: def.max_open_orders ?? null,
  };
}

/** The rules as a definition records them: only those that differ from the defaults. */
export function recordedRules(rules: EffectiveRules): MarketRules {
  const out: { -readonly [K in keyof MarketRules]: MarketRules[K] } = {};
  if (rules.maker_fee_bps !== 0) out.maker_fee_bps = rules.maker_fee_bps;
  if (rules.taker_fee_bps !== 0) out.taker_fee_bps = rules.taker_fee_bps;
  if (rules.position_limit !== DEFAULT_POSITION_LIMIT) out.position_limit = rules.position_limit;
  if (rules.max_open_orders !== null) out.max_open_orders = rules.max_open_orders;
  return out;
}

/**
 * A market as the state hash covers it: its view, the rules only where they differ from the defaults
 * (a market that never had a rule set is hashed as it was before rules existed).
 */
export function hashedMarket(m: MarketView): Record<string, unknown> {
  const { maker_fee_bps, taker_fee_bps, position_limit, max_open_orders, ...rest } = m;
  return { ...rest, ...recordedRules({ maker_fee_bps, taker_fee_bps, position_limit, max_open_orders }) };
}
