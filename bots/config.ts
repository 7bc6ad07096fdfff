// The house bots' configuration file (`npm run bots -- --config bots.json`), validated with zod: every
// field has a default except the markets and the bots themselves, unknown fields are refused (a typo
// must not silently fall back to a default), and the refusal names the field.
import { readFile } from 'node:fs/promises';
import { z } from 'zod';

/** An inclusive integer range [lo, hi] from which each draw is made uniformly. */
const range = (min: number, max: number) =>
  z
    .tuple([z.int().min(min).max(max), z.int().min(min).max(max)])
    .refine(([lo, hi]) => lo <= hi, { message: 'a range is [low, high] with low <= high' });

const MakerParams = z.strictObject({
  /** Half the spread around the (skewed) fair value, in ticks, drawn per quote cycle. */
  half_spread_ticks: range(0, 100_000).default([1, 2]),
  /** Price levels quoted on each side. */
  levels: z.int().min(1).max(20).default(3),
  /** Distance between two levels, in ticks, drawn per level. */
  level_step_ticks: range(1, 100_000).default([1, 3]),
  /** Quantity of each quote, drawn per order. */
  size: range(1, 1_000).default([1, 12]),
  /** Inventory skew: how many ticks both quotes move against the position, per unit of net position. */
  inventory_skew_ticks_per_unit: z.number().min(0).max(100).default(0.02),
  /** Beyond this net position only the side that reduces it is quoted. */
  inventory_limit: z.int().min(0).max(1_000).default(300),
  /** One quote cycle (cancel and requote) every this many ms. */
  requote_ms: z.int().min(100).max(600_000).default(1_000),
});

const TakerParams = z.strictObject({
  size: range(1, 1_000).default([1, 8]),
  /** Pause between two actions, drawn per action. */
  interval_ms: range(50, 600_000).default([250, 1_200]),
  /** Chance of a trade when no quote strays from the fair value. */
  random_trade_probability: z.number().min(0).max(1).default(0.35),
  /** Beyond this net position it stops adding to that side. */
  position_limit: z.int().min(0).max(1_000).default(600),
});

const FairValueParams = z.strictObject({
  /** Where the fair value starts; default the market's reference price (then its last trade). */
  start: z.int().min(1).optional(),
  /** Typical random move per step, in ticks. */
  volatility_ticks: z.number().min(0).max(1_000).default(2),
  /** Drift: ticks added per step (negative drifts down). */
  trend_ticks: z.number().min(-1_000).max(1_000).default(0),
  /** Fraction of the distance back to the start taken each step (0: a free walk). */
  mean_reversion: z.number().min(0).max(1).default(0.02),
  step_ms: z.int().min(50).max(600_000).default(1_000),
});

const MarketConfig = z.strictObject({
  market: z.string().regex(/^[A-Z0-9]+-[A-Z0-9]+$/, 'a market symbol such as BTC-USD'),
  maker: MakerParams.default(MakerParams.parse({})),
  taker: TakerParams.default(TakerParams.parse({})),
  fair_value: FairValueParams.default(FairValueParams.parse({})),
});

const BotConfig = z.strictObject({
  /** The bot's name; without api_key it is also the username provisioned with the admin token. */
  name: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'letters, digits, _ . - (at most 64)'),
  role: z.enum(['maker', 'taker']),
  /** A provisioned trader's key; when absent, the bot is provisioned (needs the admin token). */
  api_key: z.string().min(1).optional(),
  /** The markets it trades (default: all of the config's). */
  markets: z.array(z.string()).min(1).optional(),
});

export const BotsConfigSchema = z
  .strictObject({
    /** One seed for everything: the same seed gives the same decisions and fair-value paths. */
    seed: z.int().min(0).max(4_294_967_295).default(42),
    /** The exchange's base URL (the --url option takes precedence). */
    url: z.url({ protocol: /^https?$/ }).optional(),
    /** The admin token, to provision bots without a key (--admin-token or BOTS_ADMIN_TOKEN take precedence). */
    admin_token: z.string().min(1).optional(),
    markets: z.array(MarketConfig).min(1),
    bots: z.array(BotConfig).min(1),
  })
  .superRefine((config, ctx) => {
    const markets = new Set<string>();
    config.markets.forEach((m, i) => {
      if (markets.has(m.market)) ctx.addIssue({ code: 'custom', path: ['markets', i, 'market'], message: `${m.market} is configured twice` });
      markets.add(m.market);
    });
    const names = new Set<string>();
    config.bots.forEach((b, i) => {
      if (names.has(b.name)) ctx.addIssue({ code: 'custom', path: ['bots', i, 'name'], message: `bot name ${b.name} is used twice` });
      names.add(b.name);
      b.markets?.forEach((m, j) => {
        if (!markets.has(m)) ctx.addIssue({ code: 'custom', path: ['bots', i, 'markets', j], message: `${m} is not one of the configured markets` });
      });
    });
  });

export type BotsConfig = z.output<typeof BotsConfigSchema>;
export type BotsConfigInput = z.input<typeof BotsConfigSchema>;
export type MarketSettings = BotsConfig['markets'][number];
export type MakerSettings = MarketSettings['maker'];
export type TakerSettings = MarketSettings['taker'];
export type FairValueSettings = MarketSettings['fair_value'];

/** A configuration that cannot be used: the CLI prints it and exits 2. */
export class BotsConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BotsConfigError';
  }
}

export function parseBotsConfig(value: unknown, where = 'config'): BotsConfig {
  const r = BotsConfigSchema.safeParse(value);
  if (r.success) return r.data;
  const lines = r.error.issues.map((issue) => `  ${issue.path.length === 0 ? '(top level)' : issue.path.join('.')}: ${issue.message}`);
  throw new BotsConfigError(`${where} is not a valid bots configuration:\n${lines.join('\n')}`);
}

export async function loadBotsConfig(path: string): Promise<BotsConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new BotsConfigError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new BotsConfigError(`${path} is not JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  return parseBotsConfig(value, path);
}
