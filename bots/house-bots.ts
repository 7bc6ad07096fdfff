// The house liquidity bots against any exchange: reads the markets' definitions, gets each bot its key
// (from the config, or provisioned with the admin token), walks each market's fair value, runs the
// makers and takers, and on stop halts them and cancels every order they still have resting.
// Everything random comes from one seed, drawn in config order before anything runs, so the same seed
// gives every bot the same decisions and every market the same fair-value path (the interleaving of
// the bots' requests with the rest of the exchange still depends on timing).
import { BotApiError, rest } from './api.ts';
import type { BotsConfig } from './config.ts';
import { FairValue } from './fair-value.ts';
import { MarketMaker } from './market-maker.ts';
import type { BotEndpoints, BotMarket } from './market.ts';
import { Prng } from './prng.ts';
import { Taker } from './taker.ts';

/** The exchange refused or could not be reached while the bots started: the CLI exits 1. */
export class BotsStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BotsStartError';
  }
}

export interface BotsOptions {
  readonly baseUrl: string;
  readonly config: BotsConfig;
  /** Needed only to provision bots that have no api_key in the config. */
  readonly adminToken?: string | undefined;
}

export interface RunningBot {
  readonly name: string;
  readonly role: 'maker' | 'taker';
  readonly apiKey: string;
}

export interface RunningBots {
  readonly bots: readonly RunningBot[];
  /** Orders the bots sent so far. */
  orders(): number;
  /** 429 answers the bots had so far (a sane configuration has none). */
  rateLimited(): number;
  /** Stops every bot and cancels the orders they left resting; resolves with how many it canceled. */
  stop(): Promise<{ canceled: number }>;
}

interface ExchangeMarket {
  readonly market_id: string;
  readonly tick_size: number;
  readonly min_order_quantity: number;
  readonly reference_price: number | null;
  readonly status: string;
}

export function wsUrlOf(baseUrl: string): string {
  const url = new URL(baseUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.pathname = `${url.pathname.replace(/\/$/, '')}/ws`;
  url.search = '';
  return url.toString();
}

async function call<T>(what: string, f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err) {
    if (err instanceof BotApiError) throw new BotsStartError(`${what}: the exchange answered ${err.status}: ${err.message}`);
    throw new BotsStartError(`${what}: ${err instanceof Error ? `${err.message}${err.cause instanceof Error ? ` (${err.cause.message})` : ''}` : String(err)}`);
  }
}

async function keyOf(baseUrl: string, bot: BotsConfig['bots'][number], adminToken: string | undefined): Promise<string> {
  if (bot.api_key !== undefined) {
    await call(`bot ${bot.name}: checking its api_key`, () => rest(baseUrl, 'GET', '/api/v1/user', { apiKey: bot.api_key }));
    return bot.api_key;
  }
  if (adminToken === undefined) throw new BotsStartError(`bot ${bot.name} has no api_key: give one in the config, or the admin token (--admin-token, BOTS_ADMIN_TOKEN or admin_token) to provision it`);
  const { profile } = await call(`bot ${bot.name}: provisioning user ${bot.name}`, () =>
    rest<{ profile: { api_key: string } }>(baseUrl, 'POST', '/api/v1/admin/users', { adminToken }, { username: bot.name }),
  );
  return profile.api_key;
}

function asList(reply: unknown): { id: string }[] {
  if (Array.isArray(reply)) return reply as { id: string }[];
  // A paginated reply: the page's array, whatever its member is called.
  const list = reply !== null && typeof reply === 'object' ? Object.values(reply).find(Array.isArray) : undefined;
  return (list ?? []) as { id: string }[];
}

/** Cancels every resting order of one trader, over REST; waits out a 429 rather than give up. */
async function cancelAll(baseUrl: string, apiKey: string): Promise<number> {
  let canceled = 0;
  for (let round = 0; round < 20; round++) {
    let open: { id: string }[];
    try {
      open = asList(await rest<unknown>(baseUrl, 'GET', '/api/v1/open-orders', { apiKey }));
    } catch (err) {
      if (err instanceof BotApiError && err.status === 429) {
        await new Promise((r) => setTimeout(r, 1_000));
        continue;
      }
      throw err;
    }
    if (open.length === 0) return canceled;
    for (const order of open) {
      try {
        await rest(baseUrl, 'DELETE', `/api/v1/orders/${order.id}`, { apiKey });
        canceled++;
      } catch (err) {
        if (err instanceof BotApiError && err.status === 429) await new Promise((r) => setTimeout(r, 1_000));
        // 404: it filled or was canceled meanwhile; the next round looks again.
      }
    }
  }
  throw new Error('bots: orders still resting after 20 rounds of cancels');
}

export async function startBots(options: BotsOptions): Promise<RunningBots> {
  const { config } = options;
  const baseUrl = options.baseUrl.replace(/\/$/, '');
  const endpoints: BotEndpoints = { baseUrl, wsUrl: wsUrlOf(baseUrl) };
  const listed = await call(`reading the markets of ${baseUrl}`, () => rest<ExchangeMarket[]>(baseUrl, 'GET', '/api/v1/markets', {}));

  const root = new Prng(config.seed);
  const markets = new Map<string, BotMarket>();
  const walks: { fair: FairValue; rng: Prng; stepMs: number }[] = [];
  for (const settings of config.markets) {
    const found = listed.find((m) => m.market_id === settings.market);
    if (found === undefined) throw new BotsStartError(`market ${settings.market} is not configured on the exchange at ${baseUrl}`);
    const start = settings.fair_value.start ?? found.reference_price;
    if (start === null) throw new BotsStartError(`market ${settings.market} has no reference price: set markets[].fair_value.start for it`);
    const fair = new FairValue(start, found.tick_size, settings.fair_value);
    markets.set(settings.market, { market_id: found.market_id, tick_size: found.tick_size, min_order_quantity: found.min_order_quantity, settings, fair });
    walks.push({ fair, rng: root.fork(), stepMs: settings.fair_value.step_ms });
  }
  const rngs = config.bots.map(() => root.fork());

  const bots: RunningBot[] = [];
  for (const bot of config.bots) bots.push({ name: bot.name, role: bot.role, apiKey: await keyOf(baseUrl, bot, options.adminToken) });

  const makers: MarketMaker[] = [];
  const takers: Taker[] = [];
  config.bots.forEach((bot, i) => {
    const own = (bot.markets ?? config.markets.map((m) => m.market)).map((m) => markets.get(m) as BotMarket);
    const key = (bots[i] as RunningBot).apiKey;
    if (bot.role === 'maker') makers.push(new MarketMaker(bot.name, endpoints, key, own, rngs[i] as Prng));
    else takers.push(new Taker(bot.name, endpoints, key, own, rngs[i] as Prng));
  });

  const timers: NodeJS.Timeout[] = walks.map((w) => setInterval(() => w.fair.step(w.rng), w.stepMs));
  // Makers start a little apart, so their cycles do not all hit the exchange in the same millisecond.
  makers.forEach((m, i) => timers.push(setTimeout(() => m.start(), 150 * i)));
  for (const t of takers) t.start();

  let stopping: Promise<{ canceled: number }> | null = null;
  return {
    bots,
    orders: () => [...makers, ...takers].reduce((n, b) => n + b.orders, 0),
    rateLimited: () => [...makers, ...takers].reduce((n, b) => n + b.rateLimited, 0),
    stop: () => {
      stopping ??= (async () => {
        for (const t of timers) clearTimeout(t);
        await Promise.all([...makers, ...takers].map((b) => b.stop()));
        let canceled = 0;
        for (const bot of bots) canceled += await cancelAll(baseUrl, bot.apiKey);
        return { canceled };
      })();
      return stopping;
    },
  };
}
