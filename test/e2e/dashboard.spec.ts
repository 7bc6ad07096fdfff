// The dashboard end to end, in a real headless Chromium against the real service: the spectator's book
// against every trader's open orders, a trader's order lifecycle from the page, the operator console,
// and a reconnect after the service restarts. Each view leaves a screenshot in test-artifacts/.
import { expect } from 'chai';
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import type { RunningServer } from '../../src/server/app.ts';
import { buildWeb } from '../../web/build.ts';
import { ADMIN_TOKEN, startTestServer } from '../support/server.ts';
import { requireTool } from '../support/required-tool.ts';
import { chromiumMissing, launchBrowser, type Browser } from './support/browser.ts';
import { ExchangeClient, RestError, eventually, type Order } from './support/exchange-client.ts';

const ARTIFACTS = new URL('../../test-artifacts/', import.meta.url).pathname;

interface Level {
  readonly side: string;
  readonly price: number;
  readonly quantity: number;
  readonly orders: number;
}

/** The ladder the page shows, read from its rows' data attributes, best prices first per side. */
async function ladder(page: Page): Promise<Level[]> {
  const rows = await page.locator('[data-testid=book-level]').all();
  const levels: Level[] = [];
  for (const row of rows) {
    levels.push({
      side: (await row.getAttribute('data-side')) ?? '',
      price: Number(await row.getAttribute('data-price')),
      quantity: Number(await row.getAttribute('data-quantity')),
      orders: Number(await row.getAttribute('data-orders')),
    });
  }
  return sortLevels(levels);
}

function sortLevels(levels: readonly Level[]): Level[] {
  return [...levels].sort((a, b) => (a.side === b.side ? (a.side === 'BUY' ? b.price - a.price : a.price - b.price) : a.side < b.side ? -1 : 1));
}

/** The same ladder computed from GET /api/v1/open-orders of every trader. */
function levelsOf(orders: readonly Order[]): Level[] {
  const byKey = new Map<string, { side: string; price: number; quantity: number; orders: number }>();
  for (const o of orders) {
    const key = `${o.side}:${o.price}`;
    const level = byKey.get(key) ?? { side: o.side, price: o.price, quantity: 0, orders: 0 };
    level.quantity += o.remaining;
    level.orders += 1;
    byKey.set(key, level);
  }
  return sortLevels([...byKey.values()]);
}

async function signIn(page: Page, url: string, route: 'trader' | 'operator', secret: string): Promise<void> {
  await page.goto(`${url}/#/${route}`);
  await page.getByTestId(route === 'trader' ? 'trader-key' : 'admin-token').fill(secret);
  await page.getByTestId(route === 'trader' ? 'trader-login' : 'admin-login').click();
}

describe('dashboard (e2e, headless Chromium)', function () {
  this.timeout(30_000);
  let server: RunningServer;
  let browser: Browser;
  let api: ExchangeClient;
  let page: Page;
  const pageErrors: string[] = [];
  /**
   * Whatever the page logs as an error (a style or script the CSP blocks, an exception it caught and
   * logged), except the line Chromium writes for every HTTP answer of 4xx: these tests provoke API
   * refusals on purpose (a wrong token, an order the API refuses) and check the page's own words for
   * them. demo.spec.ts holds every view under live traffic to no console error at all.
   */
  const consoleErrors: string[] = [];
  const REFUSAL = /^Failed to load resource: the server responded with a status of 4\d\d /;

  before(async function () {
    requireTool(this, chromiumMissing());
    mkdirSync(ARTIFACTS, { recursive: true });
    // Test the page as the sources are now, not as some earlier build left it (the server reads dist/web at start).
    await buildWeb();
    server = await startTestServer();
    api = new ExchangeClient(server.url);
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  beforeEach(async () => {
    page = await browser.context.newPage();
    page.on('pageerror', (err) => pageErrors.push(err.message));
    page.on('console', (m) => {
      if (m.type() === 'error' && !REFUSAL.test(m.text())) consoleErrors.push(m.text());
    });
    // Each test starts signed out: credentials live in localStorage, shared by the context's pages.
    await page.goto(`${server.url}/`);
    await page.evaluate(() => localStorage.clear());
  });

  afterEach(async () => {
    await page.close();
    expect(pageErrors, 'errors thrown in the page').to.deep.equal([]);
    expect(consoleErrors.splice(0), 'errors on the console').to.deep.equal([]);
  });

  it('serves the page and its two assets from the service, nothing from elsewhere', async () => {
    const requested: string[] = [];
    page.on('request', (r) => requested.push(r.url()));
    await page.goto(`${server.url}/`);
    await page.getByTestId('connection').and(page.locator('[data-status=open]')).waitFor();
    const origins = new Set(requested.map((u) => new URL(u).origin));
    expect([...origins]).to.deep.equal([server.url]);
    const html = await (await fetch(`${server.url}/`)).text();
    const assets = [...html.matchAll(/\/assets\/[\w.-]+/g)].map((m) => m[0]);
    expect(assets).to.have.length(2);
    for (const asset of assets) {
      const res = await fetch(`${server.url}${asset}`);
      expect(res.status, asset).to.equal(200);
      expect(res.headers.get('cache-control')).to.contain('immutable');
    }
  });

  it('spectator: runs on the conflated channels; its l2 book matches GET /api/v1/open-orders of all traders, tickers, trades and messages arrive', async () => {
    // What the page asks of the socket: the spectator view must follow l2 and ticker, never l3.
    const subscribed: { channel: string; market?: string }[] = [];
    page.on('websocket', (ws) =>
      ws.on('framesent', (f) => {
        const frame = JSON.parse(String(f.payload)) as { op?: string; channel?: string; market?: string };
        if (frame.op === 'subscribe' && frame.channel !== undefined) subscribed.push({ channel: frame.channel, ...(frame.market === undefined ? {} : { market: frame.market }) });
      }),
    );
    await api.market('SPEC-USD');
    const alice = await api.trader('spec-alice');
    const bob = await api.trader('spec-bob');
    const carol = await api.trader('spec-carol');
    await api.order(alice, 'SPEC-USD', 'BUY', 99, 5);
    await api.order(alice, 'SPEC-USD', 'BUY', 99, 3);
    await api.order(carol, 'SPEC-USD', 'BUY', 97, 7);
    await api.order(bob, 'SPEC-USD', 'SELL', 101, 4);
    await api.order(bob, 'SPEC-USD', 'SELL', 103, 1);
    const everyone = async (): Promise<Order[]> => (await Promise.all([alice, bob, carol].map((k) => api.openOrders(k, 'SPEC-USD')))).flat();

    // A fresh document, so its socket is opened (and watched) from the start.
    await page.goto(`${server.url}/#/spectator`);
    await page.reload();
    await page.locator('.market-row[data-market="SPEC-USD"]').click();
    const book = page.locator('[data-testid=book][data-market="SPEC-USD"]');
    await book.waitFor();
    await eventually(async () => expect(await ladder(page)).to.deep.equal(levelsOf(await everyone())));
    // Each level's depth bar is drawn, as wide as its share of the largest level shown (8 at 99).
    const bars = (await page.evaluate(
      "[...document.querySelectorAll('[data-testid=book-level]')].map((r) => ({ quantity: Number(r.dataset.quantity), bar: r.querySelector('[data-testid=depth-bar]').getBoundingClientRect().width, cell: r.querySelector('.size').getBoundingClientRect().width }))",
    )) as { quantity: number; bar: number; cell: number }[];
    expect(bars).to.have.length(4);
    for (const b of bars) expect(b.bar, `bar of a level of ${b.quantity}`).to.be.closeTo((b.cell * b.quantity) / 8, 2).and.above(0);
    const before = Number(await book.getAttribute('data-sequence'));
    expect(await page.getByTestId('book-sequence').textContent()).to.equal(`l2 seq ${before}`);
    const row = page.locator('.market-row[data-market="SPEC-USD"]');
    await eventually(async () => expect(await row.textContent()).to.contain('99').and.contain('101').and.contain('last –'));

    // Live: bob crosses alice's two bids (5 then 1 of the 3), carol adds a level. The conflated feed
    // brings them in one or two l2 updates (one per 100 ms at most), and the ticker the last trade.
    await api.order(bob, 'SPEC-USD', 'SELL', 99, 6);
    await api.order(carol, 'SPEC-USD', 'BUY', 96, 2);
    await eventually(async () => expect(await ladder(page)).to.deep.equal(levelsOf(await everyone())));
    expect(Number(await book.getAttribute('data-sequence')) - before).to.be.within(1, 2);
    await eventually(async () => expect(await row.textContent()).to.contain('last 99'));
    expect(subscribed.filter((s) => s.channel === 'l3'), 'no l3 subscription from the spectator view').to.deep.equal([]);
    expect(subscribed).to.deep.include({ channel: 'l2', market: 'SPEC-USD' });
    expect(subscribed).to.deep.include({ channel: 'ticker', market: 'SPEC-USD' });
    // Standings are not public on this server: the page asked, was refused, and shows no panel.
    expect(subscribed).to.deep.include({ channel: 'standings' });
    expect(await page.getByTestId('standings').isHidden()).to.equal(true);
    // The trade tape (REST, newest first, with the aggressor's side) and the candle chart of the market.
    const trades = page.getByTestId('trade');
    await eventually(async () => expect(await trades.count()).to.equal(2));
    expect(await trades.first().textContent()).to.contain('SELL').and.contain('99').and.contain('1');
    await page.getByTestId('candle-chart').waitFor();

    await api.call('POST', '/api/v1/admin/messages', { admin: true }, { level: 'warning', title: 'Heads up', body: 'Trading halts in 5 minutes' });
    await page.getByTestId('admin-message').filter({ hasText: 'Trading halts in 5 minutes' }).waitFor();
    await page.screenshot({ path: `${ARTIFACTS}spectator.png`, fullPage: true });
  });

  it('trader: places, amends and cancels from the page, sees the fill when another trader crosses', async () => {
    await api.market('TRD-USD', 2);
    const dave = await api.trader('trd-dave');
    const erin = await api.trader('trd-erin');
    await signIn(page, server.url, 'trader', dave);
    await eventually(async () => expect(await page.getByTestId('trader-name').textContent()).to.equal('trd-dave'));
    await eventually(async () => expect(await page.getByTestId('trader-live').textContent()).to.equal('live'));

    const place = async (side: 'BUY' | 'SELL', price: string, quantity: string): Promise<void> => {
      await page.getByTestId('ticket-market').selectOption('TRD-USD');
      await page.getByTestId('ticket-side').selectOption(side);
      await page.getByTestId('ticket-price').fill(price);
      await page.getByTestId('ticket-quantity').fill(quantity);
      await page.getByTestId('ticket-submit').click();
    };

    // A refusal reads exactly as the API words it.
    const refusal = await api.order(dave, 'TRD-USD', 'BUY', 51, 1).then(
      () => null,
      (err: unknown) => (err instanceof RestError ? err.message : null),
    );
    expect(refusal).to.be.a('string');
    await place('BUY', '51', '1');
    await eventually(async () => expect(await page.getByTestId('ticket-status').textContent()).to.equal(refusal));

    await place('BUY', '50', '4');
    await eventually(async () => expect(await page.getByTestId('ticket-status').textContent()).to.contain('accepted'));
    const rows = page.getByTestId('open-order');
    await eventually(async () => expect(await rows.count()).to.equal(1));
    const [first] = await api.openOrders(dave);
    expect(first).to.include({ side: 'BUY', price: 50, remaining: 4 });
    await rows.first().getByTestId('cancel').click();
    await eventually(async () => expect(await rows.count()).to.equal(0));
    expect(await api.openOrders(dave)).to.deep.equal([]);

    await place('BUY', '50', '4');
    await eventually(async () => expect(await rows.count()).to.equal(1));
    await rows.first().getByTestId('amend-input').fill('3');
    await rows.first().getByTestId('amend').click();
    await eventually(async () => expect(await rows.first().getByTestId('order-remaining').textContent()).to.equal('3'));
    expect((await api.openOrders(dave))[0]?.remaining).to.equal(3);

    // Erin crosses over REST; the page learns of the fill through the socket's private events.
    await api.order(erin, 'TRD-USD', 'SELL', 50, 3);
    const fill = page.getByTestId('fill');
    await eventually(async () => expect(await fill.count()).to.equal(1));
    expect(await fill.first().getByTestId('fill-quantity').textContent()).to.equal('3');
    expect(await fill.first().textContent()).to.contain('BUY').and.contain('maker');
    await eventually(async () => expect(await rows.count()).to.equal(0));
    await eventually(async () => expect(await page.locator('[data-testid=position][data-market="TRD-USD"]').getAttribute('data-net')).to.equal('3'));
    await eventually(async () => expect(await page.locator('[data-testid=leaderboard] tr[data-trader="trd-erin"]').count()).to.equal(1));

    // An IOC order that crosses nothing is canceled at once; a market order takes erin's offer.
    await page.getByTestId('ticket-tif').selectOption('IOC');
    await place('BUY', '40', '2');
    await eventually(async () => expect(await page.getByTestId('ticket-status').textContent()).to.contain('(IOC) accepted').and.contain('canceled 2'));
    expect(await rows.count()).to.equal(0);
    await api.order(erin, 'TRD-USD', 'SELL', 60, 1);
    await page.getByTestId('ticket-type').selectOption('MARKET');
    expect(await page.getByTestId('ticket-price').isDisabled()).to.equal(true);
    await page.getByTestId('ticket-quantity').fill('1');
    await page.getByTestId('ticket-submit').click();
    await eventually(async () => expect(await page.getByTestId('ticket-status').textContent()).to.contain('at market').and.contain('filled 1'));
    await page.getByTestId('ticket-type').selectOption('LIMIT');
    await page.getByTestId('ticket-tif').selectOption('GTC');

    // Cancel all: every open order of the trader goes in one request.
    await place('BUY', '30', '1');
    await place('BUY', '32', '1');
    await eventually(async () => expect(await rows.count()).to.equal(2));
    await page.getByTestId('cancel-all').click();
    await eventually(async () => expect(await page.getByTestId('orders-status').textContent()).to.equal('2 orders canceled'));
    await eventually(async () => expect(await rows.count()).to.equal(0));
    expect(await api.openOrders(dave)).to.deep.equal([]);
    await page.screenshot({ path: `${ARTIFACTS}trader.png`, fullPage: true });
  });

  it('trader: the market\'s rules on the ticket, each fill\'s fee and liquidity, fees in the positions and the PnL cards', async () => {
    page.setDefaultTimeout(8_000);
    // The page beforeEach opened may have read the previous test's key before localStorage was cleared:
    // let its sign-in finish, clear, and start afresh.
    await page.waitForLoadState('networkidle');
    await page.evaluate(() => localStorage.clear());
    await page.reload();
    await api.market('FEE-USD', 1, 100, { maker_fee_bps: -2, taker_fee_bps: 5, position_limit: 20, max_open_orders: 2 });
    const gus = await api.trader('fee-gus');
    const hal = await api.trader('fee-hal');
    await signIn(page, server.url, 'trader', gus);
    await eventually(async () => expect(await page.getByTestId('trader-live').textContent()).to.equal('live'));
    await page.getByTestId('ticket-market').selectOption('FEE-USD');
    await eventually(async () => expect(await page.getByTestId('ticket-rules').textContent()).to.equal('fees -2/5 bps · limit ±20 · max 2 open'));
    // Gus rests an offer, Hal takes it over REST: Gus is the maker and gets the rebate.
    await page.getByTestId('ticket-side').selectOption('SELL');
    await page.getByTestId('ticket-price').fill('100');
    await page.getByTestId('ticket-quantity').fill('10');
    await page.getByTestId('ticket-submit').click();
    await eventually(async () => expect(await page.getByTestId('ticket-status').textContent()).to.contain('accepted'));
    await api.order(hal, 'FEE-USD', 'BUY', 100, 10);
    const fill = page.getByTestId('fill');
    await eventually(async () => expect(await fill.count()).to.equal(1));
    expect(await fill.first().getByTestId('fill-fee').textContent()).to.equal('-0.20');
    expect(await fill.first().textContent()).to.contain('SELL').and.contain('maker');
    await eventually(async () => expect(await page.locator('[data-testid=position][data-market="FEE-USD"] [data-testid=position-fees]').textContent()).to.equal('-0.20'));
    await eventually(async () => expect(await page.getByTestId('pnl-fees').textContent()).to.equal('0.20'));
    await eventually(async () => expect(await page.getByTestId('pnl-realized').textContent()).to.equal('0.20'));
    // The market's position limit refuses on the page in the API's own words.
    await page.getByTestId('ticket-price').fill('110');
    await page.getByTestId('ticket-quantity').fill('11');
    await page.getByTestId('ticket-submit').click();
    await eventually(async () => expect(await page.getByTestId('ticket-status').textContent()).to.equal('projected net position for FEE-USD would be -21; limit is +/-20'));
    // The spectator's market list shows every market's rules.
    await page.goto(`${server.url}/`);
    await eventually(async () => expect(await page.locator('[data-market="FEE-USD"] [data-testid=market-rules]').textContent()).to.equal('fees -2/5 bps · limit ±20 · max 2 open'));
  });

  it('operator: a wrong token is refused in the API words; provisions a trader, creates and settles a market', async () => {
    await signIn(page, server.url, 'operator', 'not-the-token');
    await eventually(async () => expect(await page.getByTestId('admin-login-status').textContent()).to.not.equal(''));
    const wrong = await fetch(`${server.url}/api/v1/admin/state`, { headers: { authorization: 'Bearer not-the-token' } });
    expect(await page.getByTestId('admin-login-status').textContent()).to.equal(((await wrong.json()) as { error: string }).error);

    await signIn(page, server.url, 'operator', ADMIN_TOKEN);
    await eventually(async () => expect(await page.getByTestId('persistence-mode').textContent()).to.equal('disabled'));
    expect(await page.getByTestId('trading-state').textContent()).to.equal('ON');

    await page.getByTestId('provision-username').fill('ops-frank');
    await page.getByTestId('provision-submit').click();
    const key = (await page.getByTestId('new-api-key').textContent()) ?? '';
    expect(key).to.match(/^exch_[0-9a-f]{32}$/);
    expect(await api.call<{ username: string }>('GET', '/api/v1/user', { apiKey: key })).to.include({ username: 'ops-frank' });
    // The key is not kept anywhere the page could show it again.
    expect(await page.evaluate(() => JSON.stringify(localStorage))).to.not.contain(key);

    await page.getByTestId('market-base').fill('OPS');
    await page.getByTestId('market-quote').fill('USD');
    await page.getByTestId('market-display-name').fill('Operations test');
    await page.getByTestId('market-ref').fill('100');
    await page.getByTestId('market-maker-fee').fill('-1');
    await page.getByTestId('market-taker-fee').fill('4');
    await page.getByTestId('create-market').click();
    await eventually(async () => expect(await page.getByTestId('create-market-status').textContent()).to.equal('market OPS-USD is enabled'));
    const row = page.locator('[data-testid=admin-market][data-market="OPS-USD"]');
    await eventually(async () => expect(await row.getAttribute('data-status')).to.equal('enabled'));
    expect(await row.getByTestId('market-fees').textContent()).to.equal('-1 / 4');
    expect(await row.getByTestId('market-limit').textContent()).to.equal('±1,000');
    expect(await row.getByTestId('market-max-open').textContent()).to.equal('no cap');
    // A rule out of range is refused in the API's words; a patch sets the limit and the cap.
    await row.getByTestId('market-manage').click();
    await page.getByTestId('patch-taker-fee').fill('101');
    await page.getByTestId('patch-submit').click();
    await eventually(async () => expect(await page.getByTestId('patch-status').textContent()).to.equal('taker_fee_bps must be an integer from 0 to 100'));
    await page.getByTestId('patch-taker-fee').fill('');
    await page.getByTestId('patch-position-limit').fill('250');
    await page.getByTestId('patch-max-open').fill('5');
    await page.getByTestId('patch-submit').click();
    await eventually(async () => expect(await page.getByTestId('patch-status').textContent()).to.equal('market OPS-USD updated: fees -1/4 bps · limit ±250 · max 5 open'));
    await eventually(async () => expect(await row.getByTestId('market-max-open').textContent()).to.equal('5'));

    await api.order(key, 'OPS-USD', 'BUY', 100, 2);
    await row.getByTestId('market-manage').click();
    expect(await page.getByTestId('manage-market').inputValue()).to.equal('OPS-USD');
    await page.getByTestId('settle-price').fill('110');
    await page.getByTestId('settle-submit').click();
    await eventually(async () => expect(await page.getByTestId('settle-status').textContent()).to.contain('OPS-USD settled at 110: 1 orders cancelled'));
    await eventually(async () => expect(await row.getAttribute('data-status')).to.equal('settled'));
    const markets = await api.call<{ market_id: string; status: string; settlement_price: number | null }[]>('GET', '/api/v1/markets', {});
    expect(markets.find((m) => m.market_id === 'OPS-USD')).to.include({ status: 'settled', settlement_price: 110 });

    // Settling again is refused, in the API's words.
    await page.getByTestId('settle-price').fill('120');
    await page.getByTestId('settle-submit').click();
    const again = await api.call('POST', '/api/v1/admin/markets/OPS-USD/settle', { admin: true }, { settlement_price: 120 }).then(
      () => null,
      (err: unknown) => (err instanceof RestError ? err.message : null),
    );
    await eventually(async () => expect(await page.getByTestId('settle-status').textContent()).to.equal(again));

    // The reset needs its typed confirmation.
    expect(await page.getByTestId('reset-submit').isDisabled()).to.equal(true);
    await page.getByTestId('reset-confirm').fill('RESET');
    expect(await page.getByTestId('reset-submit').isDisabled()).to.equal(false);
    await page.getByTestId('reset-confirm').fill('');
    // A full-page shot of a scrolled page would draw the sticky header mid-page.
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: `${ARTIFACTS}operator.png`, fullPage: true });
  });

  it('operator: provisions teams in bulk (keys shown once), rotates and disables a trader, schedules an action, freezes the standings', async () => {
    // A step that cannot happen fails naming its locator, not as the test's timeout.
    page.setDefaultTimeout(8_000);
    // The page beforeEach opened read the previous test's token before localStorage was cleared, and its
    // sign-in may store it again once answered: let that finish, clear, and start afresh.
    await page.waitForLoadState('networkidle');
    await page.evaluate(() => localStorage.clear());
    await page.reload();
    await signIn(page, server.url, 'operator', ADMIN_TOKEN);
    await eventually(async () => expect(await page.getByTestId('persistence-mode').textContent()).to.equal('disabled'));

    await page.getByTestId('bulk-names').fill('bulk-ann\nbulk-ben\n\nbulk-cid\n');
    await page.getByTestId('bulk-submit').click();
    await eventually(async () => expect(await page.getByTestId('bulk-status').textContent()).to.equal('3 traders provisioned'));
    const keys = await page.getByTestId('bulk-key').locator('code').allTextContents();
    expect(keys).to.have.length(3);
    expect(await api.call<{ username: string }>('GET', '/api/v1/user', { apiKey: keys[1] as string })).to.include({ username: 'bulk-ben' });
    expect(await page.evaluate(() => JSON.stringify(localStorage))).to.not.contain(keys[0]);
    // A duplicate refuses the whole list, in the API's words.
    await page.getByTestId('bulk-names').fill('bulk-dan\nbulk-ann');
    await page.getByTestId('bulk-submit').click();
    await eventually(async () => expect(await page.getByTestId('bulk-status').textContent()).to.equal('1 bad row, nothing provisioned: row 2 ("bulk-ann"): username already exists'));

    const ben = page.locator('[data-testid=trader-account][data-trader="bulk-ben"]');
    await ben.getByTestId('trader-rotate').click();
    const rotated = (await page.getByTestId('rotated-api-key').textContent()) ?? '';
    expect(rotated).to.match(/^exch_[0-9a-f]{32}$/).and.not.equal(keys[1]);
    const old = await api.call('GET', '/api/v1/user', { apiKey: keys[1] as string }).then(() => 'accepted', (err: unknown) => (err instanceof RestError ? err.status : String(err)));
    expect(old).to.equal(401);
    await ben.getByTestId('trader-disable').click();
    await eventually(async () => expect(await ben.getAttribute('data-disabled')).to.equal('true'));
    await eventually(async () => expect(await page.locator('[data-testid=admin-leaderboard] [data-trader="bulk-ben"] [data-testid=disabled-mark]').count()).to.equal(1));
    await ben.getByTestId('trader-enable').click();
    await eventually(async () => expect(await ben.getAttribute('data-disabled')).to.equal('false'));

    // Ben's keys: issue a read key (shown once), which reads but does not trade; revoke it from the page.
    await ben.getByTestId('trader-keys').click();
    await eventually(async () => expect(await page.getByTestId('api-key').count()).to.equal(1));
    await page.getByTestId('key-scope').selectOption('read');
    await page.getByTestId('key-label').fill('notebook');
    await page.getByTestId('key-issue').click();
    await eventually(async () => expect(await page.getByTestId('keys-status').textContent()).to.equal('read key issued to bulk-ben'));
    const readKey = (await page.getByTestId('issued-api-key').textContent()) ?? '';
    expect(readKey).to.match(/^exch_[0-9a-f]{32}$/);
    expect(await page.evaluate(() => JSON.stringify(localStorage))).to.not.contain(readKey);
    await eventually(async () => expect(await page.getByTestId('api-key').count()).to.equal(2));
    expect(await api.call<{ username: string }>('GET', '/api/v1/user', { apiKey: readKey })).to.include({ username: 'bulk-ben' });
    const trade = await api.call('DELETE', '/api/v1/orders', { apiKey: readKey }).then(() => 'accepted', (err: unknown) => (err instanceof RestError ? `${err.status} ${err.message}` : String(err)));
    expect(trade).to.equal('403 key may only read');
    // The list shows its last use once read again.
    await ben.getByTestId('trader-keys').click();
    await eventually(async () => expect(await page.locator('[data-testid=api-key][data-scope=read] [data-testid=key-last-used]').textContent()).to.not.equal('never'));
    await page.locator('[data-testid=api-key][data-scope=read]').getByTestId('key-revoke').click();
    await eventually(async () => expect(await page.getByTestId('keys-status').textContent()).to.match(/^key [0-9a-f]{8} of bulk-ben revoked; its sessions are closed$/));
    await eventually(async () => expect(await page.getByTestId('api-key').count()).to.equal(1));
    const revoked = await api.call('GET', '/api/v1/user', { apiKey: readKey }).then(() => 'accepted', (err: unknown) => (err instanceof RestError ? err.status : String(err)));
    expect(revoked).to.equal(401);

    // A message two seconds from now: pending, then done with the seq of its event.
    const at = new Date(Date.now() + 2000);
    const local = new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 19);
    await page.getByTestId('schedule-at').fill(local);
    await page.getByTestId('schedule-action').selectOption('post_message');
    await page.getByTestId('schedule-body').fill('scheduled hello');
    await page.getByTestId('schedule-add').click();
    await eventually(async () => expect(await page.locator('[data-testid=schedule-entry][data-status=pending]').count()).to.equal(1));
    await eventually(async () => expect(await page.locator('[data-testid=schedule-entry][data-status=ran]').count()).to.equal(1), 10_000);

    await page.getByTestId('freeze-label').fill('e2e round');
    await page.getByTestId('freeze-submit').click();
    await eventually(async () => expect(await page.getByTestId('freeze-status').textContent()).to.match(/^standings "e2e round" frozen at seq \d+$/));
    await eventually(async () => expect(await page.locator('[data-testid=official-standings][data-label="e2e round"]').count()).to.equal(1));
    const official = await api.call<{ label: string }[]>('GET', '/api/v1/leaderboard/official', {});
    expect(official.map((o) => o.label)).to.include('e2e round');
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: `${ARTIFACTS}operator-competition.png`, fullPage: true });
  });

  it('reconnects and resubscribes when the service restarts, and shows the new book', async () => {
    // A server of its own, restarted on the same port: the page's socket drops and must come back.
    let own = await startTestServer();
    try {
      const first = new ExchangeClient(own.url);
      await first.market('RCN-USD');
      await first.order(await first.trader('rcn-gina'), 'RCN-USD', 'BUY', 90, 4);
      await page.goto(`${own.url}/#/spectator`);
      await eventually(async () => expect(await ladder(page)).to.deep.equal([{ side: 'BUY', price: 90, quantity: 4, orders: 1 }]));

      const port = own.port;
      await own.close();
      await page.locator('[data-testid=connection][data-status=reconnecting]').waitFor();
      own = await startTestServer({ BIND_ADDR: `127.0.0.1:${port}` });
      // In memory, the restarted service starts empty, with a new epoch: the page must take a snapshot.
      const second = new ExchangeClient(own.url);
      await second.market('RCN-USD');
      const hank = await second.trader('rcn-hank');
      await second.order(hank, 'RCN-USD', 'SELL', 95, 2);
      await second.order(hank, 'RCN-USD', 'SELL', 95, 1);
      await page.locator('[data-testid=connection][data-status=open]').waitFor({ timeout: 10_000 });
      await eventually(async () => expect(await ladder(page)).to.deep.equal(levelsOf(await second.openOrders(hank))), 8_000);
      // The new server's l2 feed: its two orders came in one or two conflated updates. A page that
      // subscribed between the orders and the next tick holds both at snapshot sequence 0, and the
      // tick still brings sequence 1 (the levels touched since the last update come again).
      await eventually(async () => expect(Number(await page.locator('[data-testid=book]').getAttribute('data-sequence'))).to.be.within(1, 2));
      // While the service was down the browser said so for each attempt to reach it (the socket's
      // reconnects, the page's REST polls): expected here, and only these.
      const down = /^(WebSocket connection to 'ws:\/\/127\.0\.0\.1:\d+\/ws' failed: Error in connection establishment: |Failed to load resource: )net::ERR_CONNECTION_REFUSED$/;
      consoleErrors.splice(0, consoleErrors.length, ...consoleErrors.filter((e) => !down.test(e)));
    } finally {
      await own.close();
    }
  });

  it('spectator: the live standings when the organizer made them public', async () => {
    const own = await startTestServer({ PUBLIC_STANDINGS: 'true' });
    try {
      const client = new ExchangeClient(own.url);
      await client.market('STD-USD');
      const ivy = await client.trader('std-ivy');
      const jon = await client.trader('std-jon');
      await client.order(ivy, 'STD-USD', 'SELL', 100, 500);
      await page.goto(`${own.url}/#/spectator`);
      const panel = page.getByTestId('standings');
      await panel.waitFor();
      await eventually(async () => expect(await panel.locator('[data-testid=standing]').count()).to.equal(2));
      // Jon buys at 100 and the bid at 3000 marks him up: the standings move within a second or two.
      await client.order(jon, 'STD-USD', 'BUY', 100, 500);
      await client.order(ivy, 'STD-USD', 'BUY', 3000, 1);
      await eventually(async () => expect(await panel.locator('[data-testid=standing][data-rank="1"]').getAttribute('data-username')).to.equal('std-jon'), 5_000);
      // Seven-figure PnL (1,450,000.00 each way) at 1440 px: the table stays inside its card.
      await eventually(async () => expect(await panel.locator('[data-testid=standing][data-rank="1"]').textContent()).to.contain('1,450,000.00'));
      const fit = (await page.evaluate("(() => { const p = document.querySelector('[data-testid=standings]').getBoundingClientRect(); const t = document.querySelector('[data-testid=standings] table').getBoundingClientRect(); return { panel: p.right, table: t.right }; })()")) as { panel: number; table: number };
      expect(fit.table, 'right edge of the table against its card').to.be.at.most(fit.panel);
      await page.screenshot({ path: `${ARTIFACTS}standings.png`, fullPage: true });
    } finally {
      await own.close();
    }
  });
});
