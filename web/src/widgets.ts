// Pieces several views share: panels, badges, tables, the leaderboard, the message list, and the
// status line every form reports into (the API's own words on a refusal).
import { describeError } from './api.ts';
import type { AdminMessage, LeaderboardRow, MarketStatus } from './api-types.ts';
import { h, type Child } from './dom.ts';
import { fmtInt, fmtMoney, fmtSigned, fmtTime, signClass } from './format.ts';

export function panel(title: Child, attrs: Readonly<Record<string, string>>, ...body: Child[]): HTMLElement {
  return h('section', { class: `panel ${attrs['class'] ?? ''}`, 'data-testid': attrs['data-testid'] }, h('h2', null, title), ...body);
}

export function statusBadge(status: MarketStatus): HTMLElement {
  return h('span', { class: `badge ${status}`, 'data-testid': 'market-status' }, status);
}

/** `numeric`: the columns whose cells are numbers (right-aligned), so their headers sit over them. */
export function table(headers: readonly string[], rows: readonly HTMLTableRowElement[], empty: string, numeric: readonly number[] = []): HTMLElement {
  if (rows.length === 0) return h('p', { class: 'empty' }, empty);
  return h('table', null, h('thead', null, h('tr', null, headers.map((x, i) => h('th', numeric.includes(i) ? { class: 'num' } : null, x)))), h('tbody', null, rows));
}

export function leaderboardTable(rows: readonly LeaderboardRow[], highlight: string | null): HTMLElement {
  return table(
    ['#', 'Trader', 'Net PnL', 'Realized', 'Unrealized', 'Exposure'],
    rows.map((r) =>
      h(
        'tr',
        { class: r.trader_id === highlight ? 'me' : null, 'data-trader': r.username },
        h('td', null, r.rank),
        h('td', null, r.username, r.disabled === true ? h('span', { class: 'muted', 'data-testid': 'disabled-mark' }, ' (disabled)') : null),
        h('td', { class: `num ${signClass(r.net_pnl)}` }, fmtSigned(r.net_pnl)),
        h('td', { class: `num ${signClass(r.realized_pnl)}` }, fmtMoney(r.realized_pnl)),
        h('td', { class: `num ${signClass(r.unrealized_pnl)}` }, fmtMoney(r.unrealized_pnl)),
        h('td', { class: 'num' }, fmtInt(r.gross_exposure)),
      ),
    ),
    'No traders yet.',
    [2, 3, 4, 5],
  );
}

export function messageList(messages: readonly AdminMessage[]): HTMLElement {
  if (messages.length === 0) return h('p', { class: 'empty' }, 'No operator messages yet.');
  return h(
    'ul',
    { class: 'messages' },
    messages.map((m) =>
      h(
        'li',
        { class: `msg ${m.level}`, 'data-testid': 'admin-message' },
        h('div', { class: 'msg-head' }, h('span', { class: `level ${m.level}` }, m.level), m.title === null ? null : h('strong', null, m.title), h('span', { class: 'muted' }, fmtTime(m.created_at)), m.market === null ? null : h('span', { class: 'tag' }, m.market), m.target_username === null ? null : h('span', { class: 'tag' }, `to ${m.target_username}`)),
        h('div', { class: 'msg-body' }, m.body),
      ),
    ),
  );
}

/** A line under a form: the outcome of the last action, the API's error text verbatim on a refusal. */
export class StatusLine {
  readonly el: HTMLElement;

  constructor(testId: string) {
    this.el = h('div', { class: 'status-line', 'data-testid': testId, role: 'status' });
  }

  ok(message: string): void {
    this.el.className = 'status-line ok';
    this.el.textContent = message;
  }

  fail(message: string): void {
    this.el.className = 'status-line err';
    this.el.textContent = message;
  }

  clear(): void {
    this.el.className = 'status-line';
    this.el.textContent = '';
  }

  /** Runs an action with the button disabled; reports success or the error as the API worded it. */
  async run<T>(button: HTMLButtonElement | null, action: () => Promise<T>, success: (result: T) => string): Promise<T | null> {
    if (button !== null) button.disabled = true;
    try {
      const result = await action();
      this.ok(success(result));
      return result;
    } catch (err) {
      this.fail(describeError(err));
      return null;
    } finally {
      if (button !== null) button.disabled = false;
    }
  }
}

/** A labelled form field. */
export function field(label: string, control: HTMLElement): HTMLElement {
  return h('label', { class: 'field' }, h('span', null, label), control);
}
