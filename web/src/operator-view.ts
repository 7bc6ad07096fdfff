// The operator console, with the admin token (kept in this browser only): trading controls and the
// persistence status, trader provisioning (the new key shown once), market administration with each
// market's rules (fees, position limit, cap on open orders), messages, the reset (behind a typed
// confirmation) and the admin leaderboard.
import type { Controls, Market, ResetReply, SettleReply, TraderProfile } from './api-types.ts';
import { fill, frameScheduler, h, integer, text } from './dom.ts';
import { fmtInt, fmtRules, fmtTime } from './format.ts';
import { CompetitionPanels } from './competition-panels.ts';
import type { OperatorSession } from './operator-session.ts';
import { field, leaderboardTable, messageList, panel, StatusLine, statusBadge, table } from './widgets.ts';

/** A number field's value for the API: the integer typed, or the raw text so the service names the problem. */
function numberOrRaw(input: HTMLInputElement): number | string {
  return integer(input) ?? input.value;
}

export class OperatorView {
  readonly el: HTMLElement;
  private readonly session: OperatorSession;
  readonly schedule: () => void;

  private readonly tokenInput = h('input', { type: 'password', placeholder: 'admin token', autocomplete: 'off', 'data-testid': 'admin-token' });
  private readonly loginStatus = new StatusLine('admin-login-status');
  private readonly loginBox: HTMLElement;
  private readonly consoleBox: HTMLElement;

  private readonly controlsBox = h('div');
  private readonly controlsStatus = new StatusLine('controls-status');
  private readonly persistenceBox = h('div', { 'data-testid': 'persistence' });
  private readonly marketsBox = h('div');
  private readonly marketsStatus = new StatusLine('markets-status');
  private readonly messagesBox = h('div');
  private readonly leaderboardBox = h('div');

  private readonly newUsername = h('input', { type: 'text', placeholder: 'username', 'data-testid': 'provision-username' });
  private readonly provisionStatus = new StatusLine('provision-status');
  private readonly newKeyBox = h('div', { class: 'new-key', hidden: true });

  private readonly mBase = h('input', { type: 'text', placeholder: 'BTC', 'data-testid': 'market-base' });
  private readonly mQuote = h('input', { type: 'text', placeholder: 'USD', 'data-testid': 'market-quote' });
  private readonly mName = h('input', { type: 'text', placeholder: 'optional', 'data-testid': 'market-display-name' });
  private readonly mTick = h('input', { type: 'number', min: '1', value: '1', 'data-testid': 'market-tick' });
  private readonly mMin = h('input', { type: 'number', min: '1', value: '1', 'data-testid': 'market-min-qty' });
  private readonly mRef = h('input', { type: 'number', min: '1', placeholder: 'optional', 'data-testid': 'market-ref' });
  private readonly mEnabled = h('input', { type: 'checkbox', checked: true, 'data-testid': 'market-enabled' });
  // No min or max on the rules: a value out of range goes to the service, whose refusal names the field.
  private readonly mMakerFee = h('input', { type: 'number', placeholder: '0 (-100..100)', 'data-testid': 'market-maker-fee' });
  private readonly mTakerFee = h('input', { type: 'number', placeholder: '0 (0..100)', 'data-testid': 'market-taker-fee' });
  private readonly mLimit = h('input', { type: 'number', placeholder: '1000', 'data-testid': 'market-position-limit' });
  private readonly mMaxOpen = h('input', { type: 'number', placeholder: 'no cap', 'data-testid': 'market-max-open' });
  private readonly createStatus = new StatusLine('create-market-status');

  private readonly selMarket = h('select', { 'data-testid': 'manage-market' });
  private readonly pName = h('input', { type: 'text', placeholder: 'unchanged', 'data-testid': 'patch-display-name' });
  private readonly pTick = h('input', { type: 'number', min: '1', placeholder: 'unchanged', 'data-testid': 'patch-tick' });
  private readonly pMin = h('input', { type: 'number', min: '1', placeholder: 'unchanged', 'data-testid': 'patch-min-qty' });
  private readonly pRef = h('input', { type: 'number', min: '1', placeholder: 'unchanged', 'data-testid': 'patch-ref' });
  private readonly pMakerFee = h('input', { type: 'number', placeholder: 'unchanged', 'data-testid': 'patch-maker-fee' });
  private readonly pTakerFee = h('input', { type: 'number', placeholder: 'unchanged', 'data-testid': 'patch-taker-fee' });
  private readonly pLimit = h('input', { type: 'number', placeholder: 'unchanged', 'data-testid': 'patch-position-limit' });
  private readonly pMaxOpen = h('input', { type: 'text', placeholder: 'unchanged; "none" lifts the cap', 'data-testid': 'patch-max-open' });
  private readonly patchStatus = new StatusLine('patch-status');
  private readonly settlePrice = h('input', { type: 'number', min: '1', 'data-testid': 'settle-price' });
  private readonly settleNote = h('input', { type: 'text', placeholder: 'default announcement', 'data-testid': 'settle-announcement' });
  private readonly settleStatus = new StatusLine('settle-status');

  private readonly msgLevel = h('select', { 'data-testid': 'message-level' }, ['info', 'warning', 'critical'].map((l) => h('option', { value: l }, l)));
  private readonly msgTitle = h('input', { type: 'text', placeholder: 'optional', 'data-testid': 'message-title' });
  private readonly msgBody = h('textarea', { rows: 2, 'data-testid': 'message-body' });
  private readonly msgTarget = h('input', { type: 'text', placeholder: 'everyone', 'data-testid': 'message-target' });
  private readonly msgMarket = h('input', { type: 'text', placeholder: 'none', 'data-testid': 'message-market' });
  private readonly messageStatus = new StatusLine('message-status');

  private readonly resetConfirm = h('input', { type: 'text', placeholder: 'type RESET', autocomplete: 'off', 'data-testid': 'reset-confirm' });
  private readonly resetStatus = new StatusLine('reset-status');
  private readonly competition: CompetitionPanels;

  constructor(session: OperatorSession) {
    this.session = session;
    this.schedule = frameScheduler(() => this.render());

    const loginButton = h('button', { type: 'submit', class: 'primary', 'data-testid': 'admin-login' }, 'Open console');
    this.loginBox = panel(
      'Operator sign-in',
      { class: 'narrow' },
      h('p', { class: 'muted' }, 'The admin token (ADMIN_API_TOKEN) stays in this browser (localStorage) and is sent only to this service.'),
      h(
        'form',
        {
          class: 'row',
          onsubmit: (e: Event) => {
            e.preventDefault();
            const token = text(this.tokenInput);
            if (token === '') return;
            void this.loginStatus.run(loginButton, async () => {
              if (!(await this.session.useToken(token))) throw new Error(this.session.error ?? 'sign-in failed');
            }, () => '');
          },
        },
        this.tokenInput,
        loginButton,
      ),
      this.loginStatus.el,
    );

    this.competition = new CompetitionPanels(session);
    const grid = h(
      'div',
      { class: 'operator-grid' },
      panel('Exchange', { 'data-testid': 'controls' }, this.controlsBox, this.controlsStatus.el, h('h3', null, 'Persistence'), this.persistenceBox),
      this.provisionPanel(),
      this.resetPanel(),
      panel('Markets', { class: 'span-2', 'data-testid': 'admin-markets' }, this.marketsBox, this.marketsStatus.el),
      this.createMarketPanel(),
      this.manageMarketPanel(),
      this.messagePanel(),
      panel('Leaderboard (all traders)', { class: 'span-all', 'data-testid': 'admin-leaderboard' }, this.leaderboardBox),
    );
    this.consoleBox = h('div', null, grid, h('h2', null, 'Running the competition'), this.competition.el);
    this.el = h('div', null, this.loginBox, this.consoleBox);
    session.onChange(this.schedule);
  }

  private provisionPanel(): HTMLElement {
    const button = h('button', { type: 'submit', class: 'primary', 'data-testid': 'provision-submit' }, 'Provision');
    const form = h(
      'form',
      {
        class: 'row',
        onsubmit: (e: Event) => {
          e.preventDefault();
          this.newKeyBox.hidden = true;
          void this.provisionStatus.run(button, () => this.session.call<{ profile: TraderProfile }>('POST', '/api/v1/admin/users', { username: this.newUsername.value }), ({ profile }) => {
            this.newUsername.value = '';
            this.showKeyOnce(profile);
            return `trader ${profile.username} provisioned`;
          });
        },
      },
      this.newUsername,
      button,
    );
    return panel('Provision a trader', { 'data-testid': 'provision' }, form, this.provisionStatus.el, this.newKeyBox);
  }

  /** The key exists nowhere else the operator can read it later: shown here until dismissed, never stored. */
  private showKeyOnce(profile: TraderProfile): void {
    const code = h('code', { 'data-testid': 'new-api-key' }, profile.api_key);
    fill(
      this.newKeyBox,
      h('p', null, h('strong', null, profile.username), '’s API key. Copy it now: it is not shown again.'),
      code,
      h(
        'div',
        { class: 'row' },
        h('button', { type: 'button', onclick: () => void navigator.clipboard?.writeText(profile.api_key).catch(() => undefined) }, 'Copy'),
        h('button', { type: 'button', onclick: () => { this.newKeyBox.hidden = true; this.newKeyBox.replaceChildren(); } }, 'Done'),
      ),
    );
    this.newKeyBox.hidden = false;
  }

  private createMarketPanel(): HTMLElement {
    const button = h('button', { type: 'submit', class: 'primary', 'data-testid': 'create-market' }, 'Create / replace');
    const form = h(
      'form',
      {
        class: 'grid-form',
        onsubmit: (e: Event) => {
          e.preventDefault();
          const base = text(this.mBase);
          const quote = text(this.mQuote);
          const body = {
            market_id: `${base}-${quote}`,
            base_asset: base,
            quote_asset: quote,
            tick_size: numberOrRaw(this.mTick),
            min_order_quantity: numberOrRaw(this.mMin),
            reference_price: text(this.mRef) === '' ? null : numberOrRaw(this.mRef),
            enabled: this.mEnabled.checked,
            display_name: text(this.mName) === '' ? null : text(this.mName),
            // Rules left empty are the defaults (no fees, the 1000 limit, no cap).
            ...(text(this.mMakerFee) === '' ? {} : { maker_fee_bps: numberOrRaw(this.mMakerFee) }),
            ...(text(this.mTakerFee) === '' ? {} : { taker_fee_bps: numberOrRaw(this.mTakerFee) }),
            ...(text(this.mLimit) === '' ? {} : { position_limit: numberOrRaw(this.mLimit) }),
            ...(text(this.mMaxOpen) === '' ? {} : { max_open_orders: numberOrRaw(this.mMaxOpen) }),
          };
          void this.createStatus.run(button, () => this.session.call<Market>('POST', '/api/v1/admin/markets', body), (m) => `market ${m.market_id} is ${m.status}`);
        },
      },
      field('Base', this.mBase),
      field('Quote', this.mQuote),
      field('Display name', this.mName),
      field('Tick size', this.mTick),
      field('Min quantity', this.mMin),
      field('Reference price', this.mRef),
      field('Maker fee (bps)', this.mMakerFee),
      field('Taker fee (bps)', this.mTakerFee),
      field('Position limit', this.mLimit),
      field('Max open orders', this.mMaxOpen),
      h('label', { class: 'check' }, this.mEnabled, ' enabled at once'),
      button,
    );
    return panel('Create a market', { 'data-testid': 'create-market-panel' }, form, this.createStatus.el);
  }

  private manageMarketPanel(): HTMLElement {
    const patchButton = h('button', { type: 'submit', 'data-testid': 'patch-submit' }, 'Save changes');
    const patchForm = h(
      'form',
      {
        class: 'grid-form',
        onsubmit: (e: Event) => {
          e.preventDefault();
          const patch: Record<string, string | number | null> = {};
          if (text(this.pName) !== '') patch['display_name'] = text(this.pName);
          if (text(this.pTick) !== '') patch['tick_size'] = numberOrRaw(this.pTick);
          if (text(this.pMin) !== '') patch['min_order_quantity'] = numberOrRaw(this.pMin);
          if (text(this.pRef) !== '') patch['reference_price'] = numberOrRaw(this.pRef);
          if (text(this.pMakerFee) !== '') patch['maker_fee_bps'] = numberOrRaw(this.pMakerFee);
          if (text(this.pTakerFee) !== '') patch['taker_fee_bps'] = numberOrRaw(this.pTakerFee);
          if (text(this.pLimit) !== '') patch['position_limit'] = numberOrRaw(this.pLimit);
          const maxOpen = text(this.pMaxOpen);
          if (maxOpen !== '') patch['max_open_orders'] = maxOpen.toLowerCase() === 'none' ? null : Number.isNaN(Number(maxOpen)) ? maxOpen : Number(maxOpen);
          const id = this.selMarket.value;
          void this.patchStatus.run(patchButton, () => this.session.call<Market>('PATCH', `/api/v1/admin/markets/${encodeURIComponent(id)}`, patch), (m) => {
            for (const input of [this.pName, this.pTick, this.pMin, this.pRef, this.pMakerFee, this.pTakerFee, this.pLimit, this.pMaxOpen]) input.value = '';
            return `market ${m.market_id} updated: ${fmtRules(m)}`;
          });
        },
      },
      field('Display name', this.pName),
      field('Tick size', this.pTick),
      field('Min quantity', this.pMin),
      field('Reference price', this.pRef),
      field('Maker fee (bps)', this.pMakerFee),
      field('Taker fee (bps)', this.pTakerFee),
      field('Position limit', this.pLimit),
      field('Max open orders', this.pMaxOpen),
      patchButton,
    );
    const settleButton = h('button', { type: 'submit', class: 'danger', 'data-testid': 'settle-submit' }, 'Settle');
    const settleForm = h(
      'form',
      {
        class: 'grid-form',
        onsubmit: (e: Event) => {
          e.preventDefault();
          const id = this.selMarket.value;
          const body: Record<string, string | number> = { settlement_price: numberOrRaw(this.settlePrice) };
          if (text(this.settleNote) !== '') body['announcement'] = text(this.settleNote);
          void this.settleStatus.run(settleButton, () => this.session.call<SettleReply>('POST', `/api/v1/admin/markets/${encodeURIComponent(id)}/settle`, body), (r) => {
            this.settlePrice.value = '';
            this.settleNote.value = '';
            return `${r.market.market_id} settled at ${fmtInt(r.settlement_price)}: ${r.canceled_orders} orders cancelled, ${r.affected_traders} traders, ${fmtInt(r.settled_quantity)} settled`;
          });
        },
      },
      field('Settlement price', this.settlePrice),
      field('Announcement', this.settleNote),
      settleButton,
    );
    return panel(
      'Manage a market',
      { 'data-testid': 'manage-market-panel' },
      field('Market', this.selMarket),
      h('h3', null, 'Patch'),
      patchForm,
      this.patchStatus.el,
      h('h3', null, 'Settle (final: cancels resting orders, realizes positions)'),
      settleForm,
      this.settleStatus.el,
    );
  }

  private messagePanel(): HTMLElement {
    const button = h('button', { type: 'submit', class: 'primary', 'data-testid': 'message-submit' }, 'Send');
    const form = h(
      'form',
      {
        class: 'grid-form',
        onsubmit: (e: Event) => {
          e.preventDefault();
          const body = {
            level: this.msgLevel.value,
            title: text(this.msgTitle) === '' ? null : text(this.msgTitle),
            body: this.msgBody.value,
            target_username: text(this.msgTarget) === '' ? null : text(this.msgTarget),
            market: text(this.msgMarket) === '' ? null : text(this.msgMarket),
          };
          void this.messageStatus.run(button, () => this.session.call<unknown>('POST', '/api/v1/admin/messages', body), () => {
            this.msgBody.value = '';
            this.msgTitle.value = '';
            return body.target_username === null ? 'broadcast sent' : `sent to ${body.target_username}`;
          });
        },
      },
      field('Level', this.msgLevel),
      field('Title', this.msgTitle),
      field('To user', this.msgTarget),
      field('Market', this.msgMarket),
      h('label', { class: 'field wide' }, h('span', null, 'Message'), this.msgBody),
      button,
    );
    return panel('Messages', { class: 'span-2', 'data-testid': 'admin-messages' }, form, this.messageStatus.el, h('h3', null, 'Recent'), this.messagesBox);
  }

  private resetPanel(): HTMLElement {
    const button = h('button', { type: 'submit', class: 'danger', 'data-testid': 'reset-submit', disabled: true }, 'Reset all traders');
    this.resetConfirm.addEventListener('input', () => {
      button.disabled = this.resetConfirm.value !== 'RESET';
    });
    const form = h(
      'form',
      {
        class: 'row',
        onsubmit: (e: Event) => {
          e.preventDefault();
          if (this.resetConfirm.value !== 'RESET') return;
          void this.resetStatus.run(button, () => this.session.call<ResetReply>('POST', '/api/v1/admin/users/reset'), (r) => {
            this.resetConfirm.value = '';
            button.disabled = true;
            return `cleared ${r.cleared_orders} orders, ${r.cleared_positions} positions, ${r.cleared_fills} fills`;
          });
        },
      },
      this.resetConfirm,
      button,
    );
    return panel('Reset', { 'data-testid': 'reset' }, h('p', { class: 'muted' }, 'Clears every open order, position and fill of every trader; accounts and keys stay. It cannot be undone. Type RESET to confirm.'), form, this.resetStatus.el);
  }

  render(): void {
    const state = this.session.state;
    this.loginBox.hidden = state !== null;
    this.consoleBox.hidden = state === null;
    if (state === null) {
      if (this.session.error !== null) this.loginStatus.fail(this.session.error);
      return;
    }
    this.renderControls(state.controls);
    const p = state.persistence;
    fill(
      this.persistenceBox,
      h(
        'dl',
        { class: 'kv' },
        h('dt', null, 'backend'),
        h('dd', null, p.backend),
        h('dt', null, 'mode'),
        h('dd', { class: p.mode === 'ok' || p.mode === 'disabled' ? 'pos' : 'neg', 'data-testid': 'persistence-mode' }, p.mode),
        h('dt', null, 'queue depth'),
        h('dd', null, fmtInt(p.queue_depth)),
        h('dt', null, 'in flight'),
        h('dd', null, fmtInt(p.in_flight_ops)),
        h('dt', null, 'enqueued'),
        h('dd', null, fmtInt(p.total_enqueued)),
        h('dt', null, 'flushes'),
        h('dd', null, fmtInt(p.total_flushes)),
        h('dt', null, 'last error'),
        h('dd', { class: p.last_error === null ? 'muted' : 'neg' }, p.last_error ?? 'none'),
      ),
      this.session.error === null ? null : h('p', { class: 'status-line err' }, this.session.error),
    );
    this.renderMarkets(state.markets);
    // The competition panels read their own lists; a change of state is when they may have changed.
    void this.competition.refresh();
    fill(this.messagesBox, messageList(state.recent_messages.slice(0, 10)));
    fill(this.leaderboardBox, leaderboardTable(this.session.leaderboard, null));
  }

  private renderControls(controls: Controls): void {
    const start = h('button', { type: 'button', 'data-testid': 'trading-start', disabled: controls.trading_enabled }, 'Start trading');
    const stop = h('button', { type: 'button', class: 'danger', 'data-testid': 'trading-stop', disabled: !controls.trading_enabled }, 'Stop trading');
    start.addEventListener('click', () => void this.controlsStatus.run(start, () => this.session.call<{ controls: Controls }>('POST', '/api/v1/admin/trading/start'), () => 'trading started'));
    stop.addEventListener('click', () => void this.controlsStatus.run(stop, () => this.session.call<{ controls: Controls }>('POST', '/api/v1/admin/trading/stop'), () => 'trading stopped'));
    fill(
      this.controlsBox,
      h('p', null, 'Trading is ', h('strong', { class: controls.trading_enabled ? 'pos' : 'neg', 'data-testid': 'trading-state' }, controls.trading_enabled ? 'ON' : 'OFF'), Date.parse(controls.updated_at) > Date.UTC(2000, 0) ? h('span', { class: 'muted' }, ` since ${fmtTime(controls.updated_at)}`) : null),
      h('div', { class: 'row' }, start, stop),
    );
  }

  private renderMarkets(markets: readonly Market[]): void {
    const ids = markets.filter((m) => m.status !== 'settled').map((m) => m.market_id);
    const all = markets.map((m) => m.market_id);
    // Rebuilt when a market comes, goes or changes status (the option text shows the status).
    const labels = markets.map((m) => `${m.market_id} (${m.status})`);
    if ([...this.selMarket.options].map((o) => o.text).join() !== labels.join()) {
      const chosen = this.selMarket.value;
      fill(this.selMarket, markets.map((m, i) => h('option', { value: m.market_id }, labels[i])));
      if (all.includes(chosen)) this.selMarket.value = chosen;
      else if (ids[0] !== undefined) this.selMarket.value = ids[0];
    }
    fill(
      this.marketsBox,
      table(
        ['Market', 'Name', 'Status', 'Tick', 'Min qty', 'Reference', 'Settlement', 'Fees maker/taker (bps)', 'Limit', 'Max open', ''],
        markets.map((m) => {
          const toggle = h('button', { type: 'button', 'data-testid': m.status === 'enabled' ? 'market-disable' : 'market-enable', disabled: m.status === 'settled' }, m.status === 'enabled' ? 'Disable' : 'Enable');
          toggle.addEventListener('click', () =>
            void this.marketsStatus.run(toggle, () => this.session.call<Market>('PATCH', `/api/v1/admin/markets/${encodeURIComponent(m.market_id)}`, { enabled: m.status !== 'enabled' }), (r) => `market ${r.market_id} is ${r.status}`),
          );
          const manage = h('button', { type: 'button', 'data-testid': 'market-manage' }, 'Manage');
          manage.addEventListener('click', () => {
            this.selMarket.value = m.market_id;
            this.selMarket.scrollIntoView({ block: 'center', behavior: 'smooth' });
          });
          const remove = h('button', { type: 'button', class: 'danger', 'data-testid': 'market-delete' }, 'Delete');
          remove.addEventListener('click', () =>
            void this.marketsStatus.run(remove, () => this.session.call<{ market_id: string }>('DELETE', `/api/v1/admin/markets/${encodeURIComponent(m.market_id)}`), (r) => `market ${r.market_id} deleted`),
          );
          return h(
            'tr',
            { 'data-testid': 'admin-market', 'data-market': m.market_id, 'data-status': m.status },
            h('td', null, h('strong', null, m.market_id)),
            h('td', null, m.display_name),
            h('td', null, statusBadge(m.status)),
            h('td', { class: 'num' }, fmtInt(m.tick_size)),
            h('td', { class: 'num' }, fmtInt(m.min_order_quantity)),
            h('td', { class: 'num' }, fmtInt(m.reference_price)),
            h('td', { class: 'num' }, fmtInt(m.settlement_price)),
            h('td', { class: 'num', 'data-testid': 'market-fees' }, `${m.maker_fee_bps} / ${m.taker_fee_bps}`),
            h('td', { class: 'num', 'data-testid': 'market-limit' }, `±${fmtInt(m.position_limit)}`),
            h('td', { class: 'num', 'data-testid': 'market-max-open' }, m.max_open_orders === null ? 'no cap' : fmtInt(m.max_open_orders)),
            h('td', { class: 'actions' }, toggle, manage, remove),
          );
        }),
        'No markets yet: create one below.',
      ),
    );
  }
}
