// `npm run demo`: the service in memory with a few markets and the house bots (bots/, the product's
// `npm run bots`) trading on them, so the dashboard at / shows a live market within seconds. The bots
// are ordinary API clients driven by one seed: DEMO_SEED (default 42) gives the same decisions and
// price paths every run (the exact interleaving still depends on timing). Ctrl-C stops the bots
// (their orders canceled) and the service cleanly.
import { rest } from '../bots/api.ts';
import { parseBotsConfig, type BotsConfigInput } from '../bots/config.ts';
import { startBots } from '../bots/house-bots.ts';
import { startServer, type RunningServer } from '../src/server/app.ts';
import { ConfigError, loadConfig } from '../src/server/config.ts';
import { createLogger } from '../src/server/logger.ts';
import { DEMO_MARKETS } from './demo-market.ts';

export interface DemoOptions {
  readonly env: Record<string, string | undefined>;
  readonly seed: number;
  readonly makers: number;
  readonly takers: number;
}

export interface RunningDemo {
  readonly server: RunningServer;
  readonly adminToken: string;
  readonly traders: readonly { readonly username: string; readonly apiKey: string }[];
  /** 429 answers the bots have had so far (they should stay under the limit: 0). */
  rateLimited(): number;
  stop(): Promise<void>;
}

/** The demo's bots as a bots configuration: what `npm run bots` would run with the same file. */
export function demoBotsConfig(seed: number, makers: number, takers: number): BotsConfigInput {
  return {
    seed,
    markets: DEMO_MARKETS.map((m) => ({ market: m.market_id, fair_value: { volatility_ticks: m.volatility_ticks } })),
    bots: [
      ...Array.from({ length: makers }, (_, i) => ({ name: `maker-${i + 1}`, role: 'maker' as const })),
      ...Array.from({ length: takers }, (_, i) => ({ name: `taker-${i + 1}`, role: 'taker' as const })),
    ],
  };
}

export async function startDemo(options: DemoOptions): Promise<RunningDemo> {
  const env = { LOG_LEVEL: 'warn', ...options.env };
  const config = loadConfig(env);
  const server = await startServer(config, createLogger(config.logLevel));
  const baseUrl = server.url;
  const admin = { adminToken: config.adminToken };

  for (const m of DEMO_MARKETS) {
    const { volatility_ticks: _v, ...definition } = m;
    await rest(baseUrl, 'POST', '/api/v1/admin/markets', admin, { ...definition, enabled: true });
  }
  const bots = await startBots({ baseUrl, adminToken: config.adminToken, config: parseBotsConfig(demoBotsConfig(options.seed, options.makers, options.takers), 'the demo') });
  const traders: { username: string; apiKey: string }[] = bots.bots.map((b) => ({ username: b.name, apiKey: b.apiKey }));
  // A trader for the person at the keyboard: no bot uses this key.
  const { profile } = await rest<{ profile: { api_key: string } }>(baseUrl, 'POST', '/api/v1/admin/users', admin, { username: 'you' });
  traders.push({ username: 'you', apiKey: profile.api_key });

  await rest(baseUrl, 'POST', '/api/v1/admin/messages', admin, { level: 'info', title: 'Welcome', body: 'This is the demo market: bots are quoting and trading. Sign in as "you" with the key printed in the terminal.' });
  // Now and then an operator broadcast, so a spectator who just arrived sees messages come in too.
  const announce = async (): Promise<void> => {
    const [leader] = await rest<{ username: string; net_pnl: number }[]>(baseUrl, 'GET', '/api/v1/admin/leaderboard', admin);
    if (leader !== undefined) await rest(baseUrl, 'POST', '/api/v1/admin/messages', admin, { level: 'info', title: 'Leaderboard', body: `${leader.username} leads with a net PnL of ${leader.net_pnl.toFixed(2)}` });
  };
  const announceTimer = setInterval(() => void announce().catch(() => undefined), 30_000);

  let stopping: Promise<void> | null = null;
  return {
    server,
    adminToken: config.adminToken,
    traders,
    rateLimited: () => bots.rateLimited(),
    stop: () => {
      stopping ??= (async () => {
        clearInterval(announceTimer);
        await bots.stop();
        await server.close();
      })();
      return stopping;
    },
  };
}

async function main(): Promise<void> {
  const seed = Number(process.env['DEMO_SEED'] ?? '42');
  let demo: RunningDemo;
  try {
    demo = await startDemo({ env: { BIND_ADDR: '127.0.0.1:8080', ...process.env }, seed: Number.isFinite(seed) ? seed : 42, makers: 3, takers: 3 });
  } catch (err) {
    const message = err instanceof ConfigError || err instanceof Error ? err.message : String(err);
    process.stderr.write(`demo: could not start: ${message}\n`);
    if (message.includes('EADDRINUSE')) process.stderr.write('demo: the port is taken; choose another with BIND_ADDR=127.0.0.1:8081 npm run demo\n');
    process.exit(1);
  }
  const you = demo.traders.find((t) => t.username === 'you');
  process.stdout.write(
    [
      '',
      `  Demo exchange running: ${demo.server.url}/`,
      `  Admin token (operator console):  ${demo.adminToken}`,
      `  Trader "you" API key:           ${you?.apiKey ?? '(none)'}`,
      `  Bots: 3 market makers, 3 takers on ${DEMO_MARKETS.map((m) => m.market_id).join(', ')} (seed ${seed})`,
      '  Ctrl-C stops it.',
      '',
    ].join('\n') + '\n',
  );
  const stop = (): void => {
    process.stdout.write('demo: stopping\n');
    demo.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`demo: shutdown failed: ${err instanceof Error ? err.message : String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (import.meta.main) void main();
