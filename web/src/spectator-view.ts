// The public view, on the conflated public channels (PublicFeed) and the REST history: every market with
// its status and ticker, the selected market's l2 book as a depth ladder (l2 sequence shown), its price
// chart (the ticker's last price per interval), 1-minute candles and the trade tape (REST), the live
// standings when the organizer made them public, and operator messages as they arrive.
import type { Market } from './api-types.ts';
import { fill, frameScheduler, h } from './dom.ts';
import { fmtInt, fmtMoney, fmtRules, fmtSigned, fmtTime } from './format.ts';
import type { L2Book } from './l2-book.ts';
import type { MarketDirectory } from './market-directory.ts';
import type { MessageLog } from './message-log.ts';
import type { PublicFeed } from './public-feed.ts';
import type { L2Level } from './server-messages.ts';
import { drawCandles } from './candle-chart.ts';
import { MarketHistory } from './market-history.ts';
import { drawPriceChart } from './price-chart.ts';
import { messageList, panel, statusBadge, table } from './widgets.ts';

const LEVELS_SHOWN = 15;
const TRADES_SHOWN = 40;
const STANDINGS_SHOWN = 20;

export class SpectatorView {
  readonly el: HTMLElement;
  private readonly directory: MarketDirectory;
  private readonly feed: PublicFeed;
  private readonly messages: MessageLog;
  private selected: string | null = null;
  private readonly marketList = h('div', { class: 'market-list', 'data-testid': 'market-list' });
  private readonly bookBox = h('div');
  private readonly tradesBox = h('div');
  private readonly messagesBox = h('div');
  private readonly standingsBox = h('div');
  private readonly standingsPanel = panel('Live standings', { class: 'standings-panel', 'data-testid': 'standings' }, this.standingsBox);
  private readonly chartTitle = h('span', null, 'Price');
  private readonly canvas = h('canvas', { class: 'chart', 'data-testid': 'price-chart' });
  private readonly candleTitle = h('span', null, 'Candles');
  private readonly candleCanvas = h('canvas', { class: 'chart', 'data-testid': 'candle-chart' });
  /** The trade tape and candles of the selected market, from the REST routes. */
  private readonly history = new MarketHistory();
  readonly schedule: () => void;

  constructor(directory: MarketDirectory, feed: PublicFeed, messages: MessageLog) {
    this.directory = directory;
    this.feed = feed;
    this.messages = messages;
    this.schedule = frameScheduler(() => this.render());
    this.el = h(
      'div',
      { class: 'spectator-grid' },
      panel('Markets', { class: 'markets-panel' }, this.marketList),
      panel('Order book', { class: 'book-panel' }, this.bookBox),
      h(
        'div',
        { class: 'stack' },
        panel(this.chartTitle, { class: 'chart-panel' }, this.canvas),
        panel(this.candleTitle, { class: 'chart-panel' }, this.candleCanvas),
        panel('Trade tape', { class: 'trades-panel' }, this.tradesBox),
      ),
      panel('Operator messages', { class: 'messages-panel', 'data-testid': 'messages' }, this.messagesBox),
      this.standingsPanel,
    );
    this.standingsPanel.hidden = true;
    directory.onChange(this.schedule);
    feed.onChange(this.schedule);
    messages.onChange(this.schedule);
    this.history.onChange(this.schedule);
    // The chart's time axis runs on even without trades.
    window.setInterval(() => this.drawChart(), 1_000);
  }

  select(market: string): void {
    this.selected = market;
    this.schedule();
  }

  render(): void {
    const markets = this.directory.markets;
    if (this.selected === null || !markets.some((m) => m.market_id === this.selected)) this.selected = markets[0]?.market_id ?? null;
    this.renderMarkets(markets);
    const market = this.selected === null ? undefined : this.directory.get(this.selected);
    this.feed.showBook(this.selected);
    this.renderBook(market, this.feed.book ?? undefined);
    this.renderTrades();
    this.renderStandings();
    fill(this.messagesBox, messageList(this.messages.messages));
    this.chartTitle.textContent = market === undefined ? 'Price' : `Price · ${market.market_id}`;
    this.candleTitle.textContent = market === undefined ? 'Candles' : `Candles (1m) · ${market.market_id}`;
    this.history.follow(this.selected);
    this.drawChart();
  }

  private drawChart(): void {
    if (!this.el.isConnected) return;
    drawPriceChart(this.canvas, this.selected === null ? [] : this.feed.trades(this.selected));
    drawCandles(this.candleCanvas, this.history.market === this.selected ? this.history.candles : []);
  }

  private renderMarkets(markets: readonly Market[]): void {
    if (this.directory.error !== null) {
      fill(this.marketList, h('p', { class: 'status-line err' }, this.directory.error));
      return;
    }
    if (markets.length === 0) {
      fill(this.marketList, h('p', { class: 'empty' }, 'No markets yet. An operator creates them in the console.'));
      return;
    }
    fill(
      this.marketList,
      markets.map((m) => {
        const ticker = this.feed.tickers.get(m.market_id);
        const bid = ticker?.best_bid ?? null;
        const ask = ticker?.best_ask ?? null;
        const last = ticker?.last_price ?? null;
        return h(
          'button',
          { class: `market-row ${m.market_id === this.selected ? 'selected' : ''}`, 'data-market': m.market_id, onclick: () => this.select(m.market_id) },
          h('div', { class: 'market-name' }, h('strong', null, m.market_id), h('span', { class: 'muted' }, m.display_name === m.market_id ? '' : m.display_name), statusBadge(m.status)),
          h('div', { class: 'market-rules muted', 'data-testid': 'market-rules' }, fmtRules(m)),
          h(
            'div',
            { class: 'market-quote' },
            h('span', { class: 'bid' }, fmtInt(bid)),
            h('span', { class: 'muted' }, '/'),
            h('span', { class: 'ask' }, fmtInt(ask)),
            h('span', { class: 'muted' }, m.status === 'settled' ? `settled ${fmtInt(m.settlement_price)}` : `last ${fmtInt(last)}`),
          ),
        );
      }),
    );
  }

  private renderBook(market: Market | undefined, book: L2Book | undefined): void {
    if (market === undefined || book === undefined) {
      fill(this.bookBox, h('p', { class: 'empty' }, 'Select a market.'));
      return;
    }
    const asks = book.levels('SELL');
    const bids = book.levels('BUY');
    const shownAsks = asks.slice(0, LEVELS_SHOWN);
    const shownBids = bids.slice(0, LEVELS_SHOWN);
    const maxQty = Math.max(1, ...shownAsks.map((l) => l.quantity), ...shownBids.map((l) => l.quantity));
    const bestBid = bids[0]?.price ?? null;
    const bestAsk = asks[0]?.price ?? null;
    const spread = bestBid !== null && bestAsk !== null ? bestAsk - bestBid : null;
    const row = (level: L2Level, side: 'bid' | 'ask'): HTMLTableRowElement =>
      h(
        'tr',
        { class: `level ${side}`, 'data-testid': 'book-level', 'data-side': side === 'bid' ? 'BUY' : 'SELL', 'data-price': level.price, 'data-quantity': level.quantity, 'data-orders': level.orders },
        h('td', { class: 'num count muted' }, level.orders),
        h('td', { class: 'num size' }, depthBar(level.quantity / maxQty), h('span', null, fmtInt(level.quantity))),
        h('td', { class: 'num price' }, fmtInt(level.price)),
      );
    fill(
      this.bookBox,
      h(
        'div',
        { class: 'book-head', 'data-testid': 'book', 'data-market': market.market_id, 'data-sequence': book.sequence, 'data-ready': String(book.ready) },
        h('strong', null, market.display_name),
        statusBadge(market.status),
        h('span', { class: 'muted', 'data-testid': 'book-sequence', title: 'sequence of the conflated l2 feed' }, `l2 seq ${book.sequence}`),
        book.ready ? null : h('span', { class: 'tag warn' }, 'resyncing'),
        h('span', { class: 'muted' }, `${book.orderCount} orders · tick ${market.tick_size}`),
      ),
      h(
        'table',
        { class: 'ladder' },
        h('thead', null, h('tr', null, h('th', { class: 'num' }, 'Orders'), h('th', { class: 'num' }, 'Size'), h('th', { class: 'num' }, 'Price'))),
        h(
          'tbody',
          null,
          asks.length > LEVELS_SHOWN ? h('tr', { class: 'more' }, h('td', { colspan: 3 }, `${asks.length - LEVELS_SHOWN} more ask levels`)) : null,
          [...shownAsks].reverse().map((l) => row(l, 'ask')),
          h('tr', { class: 'spread' }, h('td', { colspan: 3 }, spread === null ? (bids.length + asks.length === 0 ? 'empty book' : 'one-sided book') : `spread ${fmtInt(spread)}`)),
          shownBids.map((l) => row(l, 'bid')),
          bids.length > LEVELS_SHOWN ? h('tr', { class: 'more' }, h('td', { colspan: 3 }, `${bids.length - LEVELS_SHOWN} more bid levels`)) : null,
        ),
      ),
    );
  }

  /** The public trade tape (REST, newest first, with the aggressor's side), refreshed every two seconds. */
  private renderTrades(): void {
    const trades = this.history.market === this.selected ? this.history.trades.slice(0, TRADES_SHOWN) : [];
    fill(
      this.tradesBox,
      this.history.error === null ? '' : h('p', { class: 'status-line err' }, this.history.error),
      table(
        ['Time', 'Aggressor', 'Price', 'Qty'],
        trades.map((t) =>
          h(
            'tr',
            { 'data-testid': 'trade' },
            h('td', { class: 'muted' }, fmtTime(t.occurred_at)),
            h('td', { class: t.taker_side === 'BUY' ? 'pos' : 'neg' }, t.taker_side),
            h('td', { class: 'num' }, fmtInt(t.price)),
            h('td', { class: 'num' }, fmtInt(t.quantity)),
          ),
        ),
        'No trades in this market yet.',
        [2, 3],
      ),
    );
  }

  private renderStandings(): void {
    this.standingsPanel.hidden = this.feed.standingsPublic !== true;
    if (this.feed.standingsPublic !== true) return;
    fill(
      this.standingsBox,
      table(
        ['#', 'Trader', 'Net PnL', 'Realized', 'Unrealized'],
        this.feed.standings.slice(0, STANDINGS_SHOWN).map((r) =>
          h(
            'tr',
            { 'data-testid': 'standing', 'data-username': r.username, 'data-rank': r.rank },
            h('td', { class: 'num' }, r.rank),
            h('td', null, r.username),
            h('td', { class: 'num' }, fmtSigned(r.net_pnl)),
            h('td', { class: 'num' }, fmtMoney(r.realized_pnl)),
            h('td', { class: 'num' }, fmtMoney(r.unrealized_pnl)),
          ),
        ),
        'No traders yet.',
        [0, 2, 3, 4],
      ),
    );
  }
}

/**
 * A level's depth bar, `share` of the widest shown. Its width is a CSSOM property: the page's CSP
 * (style-src 'self') refuses a style attribute, which left every bar without a width.
 */
function depthBar(share: number): HTMLDivElement {
  const bar = h('div', { class: 'bar', 'data-testid': 'depth-bar' });
  bar.style.width = `${Math.round(share * 100)}%`;
  return bar;
}
