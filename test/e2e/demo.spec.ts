// `npm run demo` as a newcomer meets it: within seconds the books have both sides and trades happen,
// and the bots stay inside the rules they are ordinary clients of (rate limit, ±1000 position limit).
// Then each view of the dashboard in a real Chromium under that live traffic: not one console error
// (the page's CSP refuses nothing it does) nor page error, and the book's depth bars are drawn.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { startDemo, type RunningDemo } from '../../demo/run-demo.ts';
import { DEMO_MARKETS } from '../../demo/demo-market.ts';
import { buildWeb } from '../../web/build.ts';
import { requireTool } from '../support/required-tool.ts';
import { chromiumMissing, launchBrowser, type Browser } from './support/browser.ts';
import { ExchangeClient, eventually } from './support/exchange-client.ts';
import { ADMIN_TOKEN } from '../support/server.ts';

/** How long each view runs under the bots' traffic while the console is watched. */
const WATCH_MS = 3_000;

describe('demo (npm run demo)', function () {
  this.timeout(20_000);
  let demo: RunningDemo;

  before(async () => {
    // Built first: the server reads dist/web when it starts, and the page must be the sources as they are.
    await buildWeb();
    demo = await startDemo({ env: { BIND_ADDR: '127.0.0.1:0', ADMIN_API_TOKEN: ADMIN_TOKEN, LOG_LEVEL: 'silent', PUBLIC_STANDINGS: 'true' }, seed: 7, makers: 2, takers: 2 });
  });

  after(async () => {
    await demo?.stop();
  });

  it('fills every market with two-sided books and trades within seconds, inside the limits', async () => {
    const api = new ExchangeClient(demo.server.url);
    const taker = demo.traders.find((t) => t.username === 'taker-1');
    expect(taker).to.not.equal(undefined);
    await eventually(async () => {
      const fills = await api.call<unknown[]>('GET', '/api/v1/fills', { apiKey: taker?.apiKey ?? '' });
      expect(fills.length).to.be.greaterThan(0);
    }, 12_000);
    const state = demo.server.context.service.state;
    for (const m of DEMO_MARKETS) {
      const snapshot = state.marketData.snapshot(m.market_id);
      expect(snapshot.bids.length, `${m.market_id} bids`).to.be.greaterThan(0);
      expect(snapshot.asks.length, `${m.market_id} asks`).to.be.greaterThan(0);
    }
    for (const t of demo.traders) {
      const positions = await api.call<{ net_quantity: number }[]>('GET', '/api/v1/positions', { apiKey: t.apiKey });
      for (const p of positions) expect(Math.abs(p.net_quantity), t.username).to.be.at.most(1000);
    }
    expect(demo.rateLimited()).to.equal(0);
    expect(demo.traders.map((t) => t.username)).to.include('you');
  });

  describe('the dashboard under the demo\'s traffic (headless Chromium)', function () {
    this.timeout(40_000);
    let browser: Browser;
    before(async function () {
      requireTool(this, chromiumMissing());
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
    });

    async function watched(view: string, act: (page: Page) => Promise<void>): Promise<{ errors: string[]; page: Page }> {
      const page = await browser.context.newPage();
      const errors: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(`console: ${m.text()}`);
      });
      page.on('pageerror', (e) => errors.push(`page: ${e.message}`));
      await page.goto(`${demo.server.url}/#/${view}`);
      await act(page);
      await page.waitForTimeout(WATCH_MS);
      return { errors, page };
    }

    it('spectator, trader, operator: no console error and no page error; the depth bars have their widths', async () => {
      const you = demo.traders.find((t) => t.username === 'you')?.apiKey ?? '';
      const spectator = await watched('spectator', async (page) => {
        await page.locator('[data-testid=book-level]').first().waitFor();
        await page.getByTestId('standings').locator('[data-testid=standing]').first().waitFor();
      });
      const widths = (await spectator.page.evaluate("[...document.querySelectorAll('[data-testid=depth-bar]')].map((b) => b.getBoundingClientRect().width)")) as number[];
      expect(widths.length, 'depth bars').to.be.greaterThan(1);
      for (const w of widths) expect(w).to.be.above(0);
      // The largest level shown fills its cell; the others are narrower.
      expect(Math.max(...widths)).to.be.greaterThan(Math.min(...widths));
      const trader = await watched('trader', async (page) => {
        await page.getByTestId('trader-key').fill(you);
        await page.getByTestId('trader-login').click();
        await eventually(async () => expect(await page.getByTestId('trader-live').textContent()).to.equal('live'));
      });
      const operator = await watched('operator', async (page) => {
        await page.getByTestId('admin-token').fill(ADMIN_TOKEN);
        await page.getByTestId('admin-login').click();
        await eventually(async () => expect(await page.getByTestId('trading-state').textContent()).to.equal('ON'));
      });
      expect({ spectator: spectator.errors, trader: trader.errors, operator: operator.errors }).to.deep.equal({ spectator: [], trader: [], operator: [] });
      for (const v of [spectator, trader, operator]) await v.page.close();
    });
  });
});
