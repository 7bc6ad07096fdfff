// The trader's page: with an API key (kept in this browser only) it shows positions with PnL (after
// fees) marked on the live book, open orders with cancel and amend, fills with their fees, an order
// ticket with the market's rules and the leaderboard; the socket's private events keep them current.
import type { Order, SubmitReply } from './api-types.ts';
import { fill, frameScheduler, h, integer, text } from './dom.ts';
import { fmtFee, fmtInt, fmtMoney, fmtRules, fmtSigned, fmtTime, shortId, signClass } from './format.ts';
import type { MarketDirectory } from './market-directory.ts';
import type { MarketFeed } from './market-feed.ts';
import { markPrice, unrealizedPnl, type Quote } from './marking.ts';
import type { PublicFeed } from './public-feed.ts';
import type { TraderSession } from './trader-session.ts';
import { field, leaderboardTable, panel, StatusLine, table } from './widgets.ts';

interface OrderRow {
  readonly tr: HTMLTableRowElement;
  readonly remaining: HTMLTableCellElement;
}

export class TraderView {
  readonly el: HTMLElement;
  private readonly session: TraderSession;
  private readonly directory: MarketDirectory;
  /** The l3 book of the market being traded (the ticket's market). */
  private readonly feed: MarketFeed;
  /** Tickers of every market, for the marks of positions elsewhere. */
  private readonly tickers: PublicFeed;
  readonly schedule: () => void;

  private readonly keyInput = h('input', { type: 'password', placeholder: 'exch_…', autocomplete: 'off', spellcheck: 'false', 'data-testid': 'trader-key' });
  private readonly loginStatus = new StatusLine('trader-login-status');
  private readonly loginBox: HTMLElement;
  private readonly sessionBox: HTMLElement;
  private readonly identity = h('div', { class: 'identity' });
  private readonly summary = h('div', { class: 'cards' });
  private readonly positionsBox = h('div');
  private readonly fillsBox = h('div');
  private readonly leaderboardBox = h('div');

  private readonly ticketMarket = h('select', { 'data-testid': 'ticket-market' });
  private readonly ticketSide = h('select', { 'data-testid': 'ticket-side' }, h('option', { value: 'BUY' }, 'BUY'), h('option', { value: 'SELL' }, 'SELL'));
  private readonly ticketPrice = h('input', { type: 'number', min: '1', step: '1', inputmode: 'numeric', 'data-testid': 'ticket-price' });
  private readonly ticketQty = h('input', { type: 'number', min: '1', step: '1', inputmode: 'numeric', 'data-testid': 'ticket-quantity' });
  private readonly ticketType = h('select', { 'data-testid': 'ticket-type' }, h('option', { value: 'LIMIT' }, 'Limit'), h('option', { value: 'MARKET' }, 'Market'));
  private readonly ticketTif = h(
    'select',
    { 'data-testid': 'ticket-tif' },
    h('option', { value: 'GTC' }, 'GTC'),
    h('option', { value: 'IOC' }, 'IOC'),
    h('option', { value: 'FOK' }, 'FOK'),
    h('option', { value: 'POST_ONLY' }, 'Post only'),
  );
  private readonly ticketButton = h('button', { type: 'submit', class: 'primary', 'data-testid': 'ticket-submit' }, 'Place order');
  private readonly cancelAllButton = h('button', { type: 'button', class: 'danger', 'data-testid': 'cancel-all' }, 'Cancel all');
  private readonly ticketStatus = new StatusLine('ticket-status');
  /** The ticket market's rules: its fees, position limit and cap on open orders. */
  private readonly ticketRules = h('p', { class: 'muted', 'data-testid': 'ticket-rules' });

  private readonly ordersBody = h('tbody');
  private readonly ordersEmpty = h('p', { class: 'empty' }, 'No open orders.');
  private readonly ordersTable = h('table', null, h('thead', null, h('tr', null, ['Market', 'Side', 'Price', 'Qty', 'Remaining', 'Placed', ''].map((x) => h('th', null, x)))), this.ordersBody);
  private readonly ordersStatus = new StatusLine('orders-status');
  private readonly orderRows = new Map<string, OrderRow>();

  constructor(session: TraderSession, directory: MarketDirectory, feed: MarketFeed, tickers: PublicFeed) {
    this.session = session;
    this.directory = directory;
    this.feed = feed;
    this.tickers = tickers;
    this.ticketMarket.addEventListener('change', () => this.schedule());
    this.schedule = frameScheduler(() => this.render());

    const loginButton = h('button', { type: 'submit', class: 'primary', 'data-testid': 'trader-login' }, 'Use key');
    this.loginBox = panel(
      'Trader sign-in',
      { class: 'narrow' },
      h('p', { class: 'muted' }, 'Paste the API key your operator gave you. It stays in this browser (localStorage) and is sent only to this service.'),
      h(
        'form',
        {
          class: 'row',
          onsubmit: (e: Event) => {
            e.preventDefault();
            const key = text(this.keyInput);
            if (key === '') return;
            void this.loginStatus.run(loginButton, async () => {
              if (!(await this.session.useKey(key))) throw new Error(this.session.error ?? 'sign-in failed');
            }, () => '');
          },
        },
        this.keyInput,
        loginButton,
      ),
      this.loginStatus.el,
    );

    const ticket = h(
      'form',
      { class: 'ticket', 'data-testid': 'order-ticket', onsubmit: (e: Event) => this.submitTicket(e) },
      field('Market', this.ticketMarket),
      field('Side', this.ticketSide),
      field('Type', this.ticketType),
      field('Time in force', this.ticketTif),
      field('Price', this.ticketPrice),
      field('Quantity', this.ticketQty),
      this.ticketButton,
    );
    // A market order carries no price and takes IOC: the ticket says so rather than let the service refuse.
    this.ticketType.addEventListener('change', () => {
      const market = this.ticketType.value === 'MARKET';
      this.ticketPrice.disabled = market;
      this.ticketTif.disabled = market;
      if (market) this.ticketTif.value = 'IOC';
    });
    this.cancelAllButton.addEventListener('click', () => {
      void this.ordersStatus.run(this.cancelAllButton, () => this.session.call<{ canceled: Order[] }>('DELETE', '/api/v1/orders'), (reply) => {
        for (const o of reply.canceled) this.session.noteOrder(o);
        return `${fmtInt(reply.canceled.length)} order${reply.canceled.length === 1 ? '' : 's'} canceled`;
      });
    });
    this.sessionBox = h(
      'div',
      { class: 'trader-grid' },
      h('div', { class: 'span-all' }, this.identity, this.summary),
      panel('Order ticket', { class: 'ticket-panel' }, ticket, this.ticketRules, this.ticketStatus.el),
      panel('Open orders', { 'data-testid': 'open-orders' }, this.ordersTable, this.ordersEmpty, h('div', { class: 'row' }, this.cancelAllButton), this.ordersStatus.el),
      panel('Positions', { 'data-testid': 'positions' }, this.positionsBox),
      panel('Leaderboard', { 'data-testid': 'leaderboard' }, this.leaderboardBox),
      panel('Fills', { class: 'span-2', 'data-testid': 'fills' }, this.fillsBox),
    );
    this.el = h('div', null, this.loginBox, this.sessionBox);
    session.onChange(this.schedule);
    directory.onChange(this.schedule);
    feed.onChange(this.schedule);
    tickers.onChange(this.schedule);
  }

  render(): void {
    const signedIn = this.session.profile !== null;
    this.loginBox.hidden = signedIn;
    this.sessionBox.hidden = !signedIn;
    if (!signedIn) {
      if (this.session.error !== null) this.loginStatus.fail(this.session.error);
      return;
    }
    this.renderIdentity();
    this.renderTicketMarkets();
    const traded = this.directory.get(this.ticketMarket.value);
    this.ticketRules.textContent = traded === undefined ? '' : fmtRules(traded);
    this.feed.watch(this.ticketMarket.value === '' ? [] : [this.ticketMarket.value]);
    this.renderOrders();
    this.renderPositions();
    this.renderFills();
    fill(this.leaderboardBox, leaderboardTable(this.session.leaderboard, this.session.profile?.trader_id ?? null));
  }

  private renderIdentity(): void {
    const profile = this.session.profile;
    if (profile === null) return;
    const auth = this.session.socketAuth;
    fill(
      this.identity,
      h('strong', { 'data-testid': 'trader-name' }, profile.username),
      h('span', { class: 'muted' }, shortId(profile.trader_id)),
      h('span', { class: `tag ${auth === 'authenticated' ? 'ok' : 'warn'}`, 'data-testid': 'trader-live' }, auth === 'authenticated' ? 'live' : auth === 'refused' ? 'key refused by socket' : 'connecting'),
      this.session.error === null ? null : h('span', { class: 'status-line err' }, this.session.error),
      h('button', { class: 'link', onclick: () => this.session.forget() }, 'Forget key'),
    );
    const me = this.session.leaderboard.find((r) => r.trader_id === profile.trader_id);
    const card = (label: string, value: string, cls: string, testId: string): HTMLElement => h('div', { class: 'card' }, h('span', { class: 'muted' }, label), h('strong', { class: cls, 'data-testid': testId }, value));
    // Fees paid across markets (negative: rebates received); net and realized PnL are after them.
    let fees = 0;
    for (const p of this.session.positions) fees += p.fees;
    fill(
      this.summary,
      card('Net PnL', me === undefined ? '–' : fmtSigned(me.net_pnl), me === undefined ? '' : signClass(me.net_pnl), 'pnl-net'),
      card('Realized (after fees)', me === undefined ? '–' : fmtMoney(me.realized_pnl), me === undefined ? '' : signClass(me.realized_pnl), 'pnl-realized'),
      card(fees < 0 ? 'Rebates' : 'Fees paid', fmtFee(Math.abs(fees)), fees < 0 ? 'pos' : '', 'pnl-fees'),
      card('Unrealized', me === undefined ? '–' : fmtMoney(me.unrealized_pnl), me === undefined ? '' : signClass(me.unrealized_pnl), 'pnl-unrealized'),
      card('Rank', me === undefined ? '–' : `${me.rank} of ${this.session.leaderboard.length}`, '', 'rank'),
      card('Open orders', String(this.session.openOrders.size), '', 'open-count'),
    );
  }

  /** The traded market's own l3 book when it is in sync; any other market's ticker. */
  private quote(market: string): Quote | null {
    const book = this.feed.books.get(market);
    if (book?.ready === true) return { bid: book.bestBid(), ask: book.bestAsk() };
    const ticker = this.tickers.tickers.get(market);
    return ticker === undefined ? null : { bid: ticker.best_bid, ask: ticker.best_ask };
  }

  private renderTicketMarkets(): void {
    const ids = this.directory.markets.filter((m) => m.status === 'enabled').map((m) => m.market_id);
    const current = [...this.ticketMarket.options].map((o) => o.value);
    if (ids.join() === current.join()) return;
    const chosen = this.ticketMarket.value;
    fill(this.ticketMarket, ids.map((id) => h('option', { value: id }, id)));
    if (ids.includes(chosen)) this.ticketMarket.value = chosen;
  }

  private submitTicket(e: Event): void {
    e.preventDefault();
    const price = integer(this.ticketPrice);
    const quantity = integer(this.ticketQty);
    // Whatever was typed goes to the service as typed (as a number when it is one): its refusal,
    // not a check of ours, tells the trader what is wrong.
    const market = this.ticketType.value === 'MARKET';
    const body = {
      market: this.ticketMarket.value,
      side: this.ticketSide.value,
      ...(market ? { type: 'MARKET' } : { price: price ?? this.ticketPrice.value, time_in_force: this.ticketTif.value }),
      quantity: quantity ?? this.ticketQty.value,
    };
    void this.ticketStatus.run(this.ticketButton, () => this.session.call<SubmitReply>('POST', '/api/v1/orders', body), (reply) => {
      this.session.noteOrder(reply.order);
      const filled = reply.fills.reduce((s, f) => s + f.quantity, 0);
      const at = reply.order.price === null ? 'at market' : `@ ${fmtInt(reply.order.price)}`;
      const parts = [`${reply.order.side} ${fmtInt(reply.order.quantity)} ${reply.order.market} ${at} (${reply.order.time_in_force}) accepted`];
      if (filled > 0) parts.push(`filled ${fmtInt(filled)}`);
      parts.push(reply.resting ? `resting ${fmtInt(reply.order.remaining)}` : reply.order.status === 'filled' ? 'nothing rests' : `${reply.order.status} ${fmtInt(reply.order.remaining)}`);
      return parts.join(' · ');
    });
  }

  private renderOrders(): void {
    const orders = [...this.session.openOrders.values()].sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : 1));
    const live = new Set(orders.map((o) => o.id));
    for (const [id, row] of this.orderRows) {
      if (live.has(id)) continue;
      row.tr.remove();
      this.orderRows.delete(id);
    }
    // Rows are kept per order so an amend being typed survives the updates that keep arriving.
    orders.forEach((order, i) => {
      let row = this.orderRows.get(order.id);
      if (row === undefined) {
        row = this.orderRow(order);
        this.orderRows.set(order.id, row);
      }
      row.remaining.textContent = fmtInt(order.remaining);
      if (this.ordersBody.children[i] !== row.tr) this.ordersBody.insertBefore(row.tr, this.ordersBody.children[i] ?? null);
    });
    this.ordersTable.hidden = orders.length === 0;
    this.ordersEmpty.hidden = orders.length !== 0;
  }

  private orderRow(order: Order): OrderRow {
    const remaining = h('td', { class: 'num', 'data-testid': 'order-remaining' });
    const amendInput = h('input', { type: 'number', min: '1', step: '1', class: 'small', placeholder: 'new rem.', 'data-testid': 'amend-input' });
    const amendButton = h('button', { type: 'button', 'data-testid': 'amend' }, 'Amend');
    const cancelButton = h('button', { type: 'button', class: 'danger', 'data-testid': 'cancel' }, 'Cancel');
    amendButton.addEventListener('click', () => {
      const value = integer(amendInput);
      void this.ordersStatus.run(amendButton, () => this.session.call<{ order: Order }>('PATCH', `/api/v1/orders/${order.id}`, { remaining: value ?? amendInput.value }), (reply) => {
        amendInput.value = '';
        this.session.noteOrder(reply.order);
        return `order ${shortId(order.id)} amended: remaining ${fmtInt(reply.order.remaining)}`;
      });
    });
    cancelButton.addEventListener('click', () => {
      void this.ordersStatus.run(cancelButton, () => this.session.call<{ order: Order }>('DELETE', `/api/v1/orders/${order.id}`), () => {
        this.session.openOrders.delete(order.id);
        this.schedule();
        return `order ${shortId(order.id)} cancelled`;
      });
    });
    const tr = h(
      'tr',
      { 'data-testid': 'open-order', 'data-order-id': order.id },
      h('td', null, order.market),
      h('td', { class: order.side === 'BUY' ? 'pos' : 'neg' }, order.side),
      h('td', { class: 'num' }, fmtInt(order.price)),
      h('td', { class: 'num' }, fmtInt(order.quantity)),
      remaining,
      h('td', { class: 'muted' }, fmtTime(order.created_at)),
      h('td', { class: 'actions' }, amendInput, amendButton, cancelButton),
    );
    return { tr, remaining };
  }

  private renderPositions(): void {
    fill(
      this.positionsBox,
      table(
        ['Market', 'Net', 'Avg entry', 'Mark', 'Realized', 'Fees', 'Unrealized', 'Limit used'],
        this.session.positions.map((p) => {
          const mark = markPrice(this.directory.get(p.market), this.quote(p.market));
          const unrealized = unrealizedPnl(p, mark);
          const limit = this.session.positionLimits[p.market] ?? this.session.positionLimit;
          return h(
            'tr',
            { 'data-testid': 'position', 'data-market': p.market, 'data-net': p.net_quantity },
            h('td', null, p.market),
            h('td', { class: `num ${signClass(p.net_quantity)}` }, fmtInt(p.net_quantity)),
            h('td', { class: 'num' }, p.average_entry_price === null ? '–' : fmtMoney(p.average_entry_price)),
            h('td', { class: 'num muted' }, mark === null ? '–' : fmtMoney(mark)),
            h('td', { class: `num ${signClass(p.realized_pnl)}` }, fmtMoney(p.realized_pnl)),
            h('td', { class: 'num muted', 'data-testid': 'position-fees' }, fmtFee(p.fees)),
            h('td', { class: `num ${unrealized === null ? '' : signClass(unrealized)}` }, unrealized === null ? '–' : fmtMoney(unrealized)),
            h('td', { class: 'num muted' }, `${Math.round((Math.abs(p.net_quantity) / limit) * 100)}% of ±${fmtInt(limit)}`),
          );
        }),
        'No positions yet.',
      ),
    );
  }

  private renderFills(): void {
    fill(
      this.fillsBox,
      table(
        ['Time', 'Market', 'Side', 'Price', 'Qty', 'Role', 'Fee', 'Fill'],
        this.session.fills.slice(0, 50).map((f) => {
          const side = this.session.sideOf(f);
          return h(
            'tr',
            { 'data-testid': 'fill', 'data-fill-id': f.fill_id },
            h('td', { class: 'muted' }, fmtTime(f.occurred_at)),
            h('td', null, f.market),
            h('td', { class: side === 'BUY' ? 'pos' : side === 'SELL' ? 'neg' : '' }, side ?? '–'),
            h('td', { class: 'num' }, fmtInt(f.price)),
            h('td', { class: 'num', 'data-testid': 'fill-quantity' }, fmtInt(f.quantity)),
            h('td', { class: 'muted' }, f.liquidity),
            h('td', { class: `num ${f.fee < 0 ? 'pos' : ''}`, 'data-testid': 'fill-fee' }, fmtFee(f.fee)),
            h('td', { class: 'muted' }, shortId(f.fill_id)),
          );
        }),
        'No fills yet.',
      ),
    );
  }
}
