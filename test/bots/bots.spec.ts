// `npm run bots`: the house bots as a child process against a real server: they quote and trade within
// seconds, and SIGTERM stops them with every order they had resting canceled and exit code 0. The same
// seed gives the same quotes; a bad configuration is refused with exit 2 and a message naming the field.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { parseBotsConfig, type BotsConfigInput } from '../../bots/config.ts';
import { startBots } from '../../bots/house-bots.ts';
import type { RunningServer } from '../../src/server/app.ts';
import { ADMIN_TOKEN, startTestServer } from '../support/server.ts';

const CLI = new URL('../../bots/cli.ts', import.meta.url).pathname;
const EXAMPLE = new URL('../../bots/example.json', import.meta.url).pathname;
const tmp = mkdtempSync(join(tmpdir(), 'bots-test-'));

interface Cli {
  readonly exited: Promise<number | null>;
  stderr(): string;
  kill(signal: NodeJS.Signals): void;
}

function runCli(args: string[], env: Record<string, string> = {}): Cli {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { exited, stderr: () => err, kill: (signal) => child.kill(signal) };
}

function configFile(config: unknown): string {
  const path = join(tmp, `bots-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, typeof config === 'string' ? config : JSON.stringify(config));
  return path;
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('house bots (npm run bots)', function () {
  this.timeout(30_000);
  let server: RunningServer;

  const admin = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(server.url + path, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  const market = (id: string, reference: number, tick = 1) => {
    const [base, quote] = id.split('-');
    return admin('POST', '/api/v1/admin/markets', { market_id: id, base_asset: base, quote_asset: quote, tick_size: tick, min_order_quantity: 1, reference_price: reference, enabled: true });
  };
  const provision = async (username: string) => (await admin<{ profile: { api_key: string; trader_id: string } }>('POST', '/api/v1/admin/users', { username })).profile;

  beforeEach(async () => {
    server = await startTestServer();
    await market('BTC-USD', 64_000, 5);
    await market('ETH-USD', 3_100);
  });
  afterEach(async () => {
    await server?.close();
  });

  it('quote and trade against a real server, and stop on SIGTERM with their orders canceled (exit 0)', async () => {
    // One maker with a key provisioned beforehand, the others provisioned by the command with the admin token.
    const maker = await provision('desk-maker');
    const config: BotsConfigInput = {
      seed: 7,
      markets: [
        { market: 'BTC-USD', maker: { requote_ms: 300 }, taker: { interval_ms: [50, 150], random_trade_probability: 0.8 }, fair_value: { step_ms: 100 } },
        { market: 'ETH-USD', maker: { requote_ms: 300, levels: 2 }, taker: { interval_ms: [50, 150], random_trade_probability: 0.8 }, fair_value: { step_ms: 100, trend_ticks: 1 } },
      ],
      bots: [
        { name: 'desk-maker', role: 'maker', api_key: maker.api_key },
        { name: 'house-maker', role: 'maker', markets: ['ETH-USD'] },
        { name: 'house-taker', role: 'taker' },
      ],
    };
    const cli = runCli(['--config', configFile(config), '--url', server.url, '--admin-token', ADMIN_TOKEN]);
    const state = server.context.service.state;
    const book = (m: string) => state.marketData.snapshot(m);
    await until('two-sided books on both markets', () => ['BTC-USD', 'ETH-USD'].every((m) => book(m).bids.length > 0 && book(m).asks.length > 0));
    await until('fills', async () => ((await (await fetch(`${server.url}/api/v1/fills`, { headers: { 'x-api-key': maker.api_key } })).json()) as unknown[]).length > 0);
    const users = await admin<{ username: string }[]>('GET', '/api/v1/admin/leaderboard');
    expect(users.map((u) => u.username).sort()).to.deep.equal(['desk-maker', 'house-maker', 'house-taker']);

    cli.kill('SIGTERM');
    expect(await cli.exited, cli.stderr()).to.equal(0);
    expect(cli.stderr()).to.match(/SIGTERM: stopping/).and.match(/canceled \d+ resting orders/);
    for (const m of ['BTC-USD', 'ETH-USD']) expect({ bids: book(m).bids.length, asks: book(m).asks.length }, m).to.deep.equal({ bids: 0, asks: 0 });
    // And they stay gone: nothing of the bots is still running.
    const seq = server.context.service.exchange.seq;
    await new Promise((r) => setTimeout(r, 500));
    expect(server.context.service.exchange.seq).to.equal(seq);
  });

  it('give the same quotes for the same seed, and other quotes for another seed', async () => {
    // The fair values do not step during the test (a step a second would move the ladder whenever a loaded
    // machine is slower than a second to the first quote): the quotes depend on the seed alone.
    const config = (seed: number): BotsConfigInput => ({
      seed,
      markets: [
        { market: 'BTC-USD', maker: { requote_ms: 60_000, levels: 4 }, fair_value: { step_ms: 600_000 } },
        { market: 'ETH-USD', fair_value: { step_ms: 600_000 } },
      ],
      bots: [{ name: `m${seed}-${Math.random().toString(36).slice(2, 8)}`, role: 'maker' }],
    });
    const quotes = async (seed: number): Promise<string[]> => {
      const bots = await startBots({ baseUrl: server.url, adminToken: ADMIN_TOKEN, config: parseBotsConfig(config(seed)) });
      try {
        const key = (bots.bots[0] as { apiKey: string }).apiKey;
        let open: { market: string; side: string; price: number; quantity: number }[] = [];
        // Four levels a side on BTC-USD, the default three on ETH-USD.
        await until('the first ladder', async () => {
          open = (await (await fetch(`${server.url}/api/v1/open-orders`, { headers: { 'x-api-key': key } })).json()) as typeof open;
          return open.length === 2 * 4 + 2 * 3;
        });
        return open.map((o) => `${o.market} ${o.side} ${o.price} x${o.quantity}`).sort();
      } finally {
        const { canceled } = await bots.stop();
        expect(canceled).to.equal(14);
      }
    };
    const first = await quotes(11);
    expect(await quotes(11)).to.deep.equal(first);
    expect(await quotes(12)).to.not.deep.equal(first);
  });

  it('refuse a bad configuration with exit 2 naming the field, and an exchange without the market with exit 1', async () => {
    const bad = runCli(['--config', configFile({ markets: [{ market: 'BTC-USD', maker: { levels: 0, spread: 3 } }], bots: [{ name: 'x', role: 'maker', markets: ['SOL-USD'] }] }), '--url', server.url]);
    expect(await bad.exited).to.equal(2);
    expect(bad.stderr()).to.include('is not a valid bots configuration');
    expect(bad.stderr()).to.include('markets.0.maker.levels:');
    expect(bad.stderr()).to.include('markets.0.maker: Unrecognized key: "spread"');
    expect(bad.stderr()).to.include('bots.0.markets.0: SOL-USD is not one of the configured markets');

    const notJson = runCli(['--config', configFile('{ nope'), '--url', server.url]);
    expect(await notJson.exited).to.equal(2);
    expect(notJson.stderr()).to.include('is not JSON');
    const noUrl = runCli(['--config', EXAMPLE]);
    expect(await noUrl.exited).to.equal(2);
    expect(noUrl.stderr()).to.include('--url');

    const missing = runCli(['--config', configFile({ markets: [{ market: 'SOL-USD' }], bots: [{ name: 'x', role: 'taker' }] }), '--url', server.url, '--admin-token', ADMIN_TOKEN]);
    expect(await missing.exited).to.equal(1);
    expect(missing.stderr()).to.include('market SOL-USD is not configured on the exchange');
    const noToken = runCli(['--config', configFile({ markets: [{ market: 'BTC-USD' }], bots: [{ name: 'x', role: 'taker' }] }), '--url', server.url], { BOTS_ADMIN_TOKEN: '' });
    expect(await noToken.exited).to.equal(1);
    expect(noToken.stderr()).to.include('bot x has no api_key');
    // The example configuration is a valid one.
    expect(() => parseBotsConfig(JSON.parse(readFileSync(EXAMPLE, 'utf8')))).to.not.throw();
  });
});
