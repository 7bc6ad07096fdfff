// The SDK's starter market maker, unchanged, against a practice exchange (docs/clients.md): it reads the
// markets, follows the book over the WebSocket and quotes around the mid with the key the ready line
// prints, and the recorded takers meet its quotes as they would any order.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import type { PracticeReport } from '../../src/server/practice/practice-report.ts';
import { Client } from '../http/support/client.ts';
import { PracticeProcess } from '../practice/support/practice-cli.ts';
import { Recorder, writeLog } from '../practice/support/recordings.ts';

const EXAMPLE = new URL('../../clients/typescript/examples/market-maker.ts', import.meta.url).pathname;

describe('the TypeScript SDK\'s example market maker against a practice exchange', function () {
  this.timeout(60_000);

  it('quotes with the ready line\'s key; the recorded takers fill its quotes; the report ranks it', async () => {
    // alice's wide quotes rest; then bob, for ten recorded seconds, buys at 104 and sells at 96.
    const r = new Recorder(500);
    const alice = r.trader('alice');
    const bob = r.trader('bob');
    r.market('BTC-USD');
    r.order(alice, 'SELL', 110, 50);
    r.order(alice, 'BUY', 90, 50);
    for (let i = 0; i < 10; i++) r.order(bob, i % 2 === 0 ? 'BUY' : 'SELL', i % 2 === 0 ? 104 : 96, 1, 'BTC-USD', 1000);
    const practice = new PracticeProcess(['--file', writeLog(r.events), '--from-time', r.events[5]?.time as string, '--bind', ':0', '--paused', '--speed', '4']);
    const ready = await practice.line<{ url: string; api_key: string; admin_token: string; trader_id: string }>(0);
    const bot = spawn(process.execPath, [EXAMPLE], { env: { ...process.env, EXCHANGE_URL: ready.url, EXCHANGE_API_KEY: ready.api_key, MARKET: 'BTC-USD', SIZE: '1' } });
    let output = '';
    bot.stdout.on('data', (d: Buffer) => (output += d.toString()));
    bot.stderr.on('data', (d: Buffer) => (output += d.toString()));
    try {
      const client = new Client(ready.url);
      // Its quotes rest before the play starts: around the mid of alice's 90 / 110.
      for (let i = 0; i < 100; i++) {
        const open = await client.request<{ price: number }[]>('GET', '/api/v1/open-orders', { apiKey: ready.api_key });
        if (open.body.length === 2) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(output).to.match(/mid 100 position 0 quotes 98 \/ 102/);
      await client.request('POST', '/api/v1/practice/resume', { token: `Bearer ${ready.admin_token}` });
      const { report } = await practice.line<{ report: PracticeReport }>(1);
      const fills = await client.request<{ price: number }[]>('GET', '/api/v1/fills', { apiKey: ready.api_key });
      expect(fills.body.length).to.be.greaterThan(0);
      // bob's orders, which rested in the recording, now take the bot's quotes: they diverge.
      expect(report.diverged).to.be.greaterThan(0);
      expect(report.standings.map((s) => s.trader_id)).to.include(ready.trader_id);
    } finally {
      bot.kill('SIGTERM');
      await new Promise((resolve) => bot.once('exit', resolve));
      await practice.stop();
    }
    expect(output).to.match(/canceled \d+ orders/);
  });
});
