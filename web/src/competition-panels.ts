// The operator's controls for running a competition (docs/api.md): bulk provisioning from pasted names or
// a CSV file (keys shown once), key rotation, each trader's keys (key-panel.ts) and disabling per
// trader, the schedule, and freezing the official leaderboard. Each control is one admin call; the panels
// re-read their lists after each.
import type { OfficialStandings, Schedule, ScheduleEntry, TraderAccount, TraderProfile } from './api-types.ts';
import { fill, h, text } from './dom.ts';
import { fmtTime } from './format.ts';
import { KeyPanel } from './key-panel.ts';
import type { OperatorSession } from './operator-session.ts';
import { field, panel, StatusLine, table } from './widgets.ts';

const ACTIONS = ['start_trading', 'stop_trading', 'enable_market', 'disable_market', 'settle_market', 'post_message'] as const;
const ENTRY_FIELDS = ['market_id', 'settlement_price', 'announcement', 'level', 'body', 'title', 'market', 'target_username'];

/** Quoting for the keys file the browser builds from the JSON reply (RFC 4180: quote, double the quotes). */
function csvLine(values: readonly string[]): string {
  return values.map((v) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v)).join(',');
}

/** An entry as PUT takes it back: `at` and the action's own fields. */
function entryInput(e: ScheduleEntry): Record<string, unknown> {
  const out: Record<string, unknown> = { at: e.at, action: e.action };
  for (const k of ENTRY_FIELDS) if (e[k] !== undefined && e[k] !== null) out[k] = e[k];
  return out;
}

function describeEntry(e: ScheduleEntry): string {
  const details = ENTRY_FIELDS.filter((k) => e[k] !== undefined && e[k] !== null).map((k) => `${k}=${String(e[k])}`);
  return details.length === 0 ? e.action : `${e.action} (${details.join(', ')})`;
}

export class CompetitionPanels {
  readonly el: HTMLElement;
  private readonly session: OperatorSession;

  private readonly bulkNames = h('textarea', { rows: 4, placeholder: 'one username per line', 'data-testid': 'bulk-names' });
  private readonly bulkFile = h('input', { type: 'file', accept: '.csv,text/csv', 'data-testid': 'bulk-file' });
  private readonly bulkStatus = new StatusLine('bulk-status');
  private readonly bulkKeys = h('div', { class: 'new-key', hidden: true, 'data-testid': 'bulk-keys' });

  private readonly tradersBox = h('div', { 'data-testid': 'trader-accounts' });
  private readonly tradersStatus = new StatusLine('traders-status');
  private readonly rotatedKey = h('div', { class: 'new-key', hidden: true });
  private readonly keys: KeyPanel;

  private readonly schedAt = h('input', { type: 'datetime-local', step: '1', 'data-testid': 'schedule-at' });
  private readonly schedAction = h('select', { 'data-testid': 'schedule-action' }, ACTIONS.map((a) => h('option', { value: a }, a)));
  private readonly schedMarket = h('input', { type: 'text', placeholder: 'BTC-USD', 'data-testid': 'schedule-market' });
  private readonly schedPrice = h('input', { type: 'number', min: '1', placeholder: 'settle only', 'data-testid': 'schedule-price' });
  private readonly schedBody = h('input', { type: 'text', placeholder: 'message (post only)', 'data-testid': 'schedule-body' });
  private readonly scheduleBox = h('div', { 'data-testid': 'schedule' });
  private readonly scheduleStatus = new StatusLine('schedule-status');
  private schedule: Schedule = { pending: [], done: [] };

  private readonly freezeLabel = h('input', { type: 'text', placeholder: 'round 1', 'data-testid': 'freeze-label' });
  private readonly freezeStatus = new StatusLine('freeze-status');
  private readonly officialBox = h('div', { 'data-testid': 'official' });

  constructor(session: OperatorSession) {
    this.session = session;
    this.keys = new KeyPanel(session);
    this.el = h('div', { class: 'operator-grid' }, this.bulkPanel(), this.tradersPanel(), this.keys.el, this.schedulePanel(), this.officialPanel());
  }

  /** Re-reads the traders, the schedule and the official standings. */
  async refresh(): Promise<void> {
    if (this.session.token === null) return;
    try {
      const [traders, schedule, official] = await Promise.all([
        this.session.read<TraderAccount[]>('/api/v1/admin/users'),
        this.session.read<Schedule>('/api/v1/admin/schedule'),
        this.session.read<OfficialStandings[]>('/api/v1/leaderboard/official'),
      ]);
      this.schedule = schedule;
      this.renderTraders(traders);
      this.renderSchedule();
      this.renderOfficial(official);
      await this.keys.refresh();
    } catch (err) {
      this.tradersStatus.fail(err instanceof Error ? err.message : String(err));
    }
  }

  private bulkPanel(): HTMLElement {
    const button = h('button', { type: 'submit', class: 'primary', 'data-testid': 'bulk-submit' }, 'Provision all');
    const form = h(
      'form',
      {
        class: 'grid-form',
        onsubmit: (e: Event) => {
          e.preventDefault();
          this.bulkKeys.hidden = true;
          const file = this.bulkFile.files?.[0];
          void this.bulkStatus.run(
            button,
            async () => {
              if (file !== undefined) return this.session.upload<{ profiles: TraderProfile[] }>('POST', '/api/v1/admin/users/bulk', await file.text(), 'text/csv');
              const names = this.bulkNames.value.split('\n').filter((n) => n.trim() !== '');
              return this.session.call<{ profiles: TraderProfile[] }>('POST', '/api/v1/admin/users/bulk', names);
            },
            ({ profiles }) => {
              this.bulkNames.value = '';
              this.bulkFile.value = '';
              this.showKeys(profiles);
              void this.refresh();
              return `${profiles.length} traders provisioned`;
            },
          );
        },
      },
      h('label', { class: 'field wide' }, h('span', null, 'Usernames'), this.bulkNames),
      field('or a CSV file (username column)', this.bulkFile),
      button,
    );
    return panel('Provision many traders', { class: 'span-2', 'data-testid': 'bulk' }, h('p', { class: 'muted' }, 'All or nothing: one bad or duplicate name refuses the whole list, naming every bad row. Up to 10,000.'), form, this.bulkStatus.el, this.bulkKeys);
  }

  /** The keys exist nowhere else: shown here until dismissed, downloadable as CSV, never stored. */
  private showKeys(profiles: readonly TraderProfile[]): void {
    const csv = [csvLine(['username', 'trader_id', 'api_key']), ...profiles.map((p) => csvLine([p.username, p.trader_id, p.api_key]))].join('\r\n') + '\r\n';
    const download = h('a', { href: URL.createObjectURL(new Blob([csv], { type: 'text/csv' })), download: 'api-keys.csv', 'data-testid': 'bulk-download' }, 'Download keys (CSV)');
    fill(
      this.bulkKeys,
      h('p', null, h('strong', null, `${profiles.length} API keys. `), 'Copy or download them now: they are not shown again.'),
      table(['Username', 'API key'], profiles.slice(0, 200).map((p) => h('tr', { 'data-testid': 'bulk-key' }, h('td', null, p.username), h('td', null, h('code', null, p.api_key)))), ''),
      profiles.length > 200 ? h('p', { class: 'muted' }, `and ${profiles.length - 200} more in the CSV`) : null,
      h('div', { class: 'row' }, download, h('button', { type: 'button', onclick: () => { this.bulkKeys.hidden = true; this.bulkKeys.replaceChildren(); } }, 'Done')),
    );
    this.bulkKeys.hidden = false;
  }

  private tradersPanel(): HTMLElement {
    return panel('Traders: keys and access', { class: 'span-2', 'data-testid': 'traders' }, this.tradersBox, this.tradersStatus.el, this.rotatedKey);
  }

  private renderTraders(traders: readonly TraderAccount[]): void {
    fill(
      this.tradersBox,
      table(
        ['Trader', 'Since', 'Status', ''],
        traders.map((t) => {
          const rotate = h('button', { type: 'button', 'data-testid': 'trader-rotate' }, 'Rotate key');
          rotate.addEventListener('click', () =>
            void this.tradersStatus.run(rotate, () => this.session.call<{ profile: TraderProfile }>('POST', `/api/v1/admin/users/${encodeURIComponent(t.trader_id)}/rotate-key`), ({ profile }) => {
              fill(
                this.rotatedKey,
                h('p', null, h('strong', null, profile.username), '’s new API key (the old one no longer works). Copy it now: it is not shown again.'),
                h('code', { 'data-testid': 'rotated-api-key' }, profile.api_key),
                h('div', { class: 'row' }, h('button', { type: 'button', onclick: () => { this.rotatedKey.hidden = true; this.rotatedKey.replaceChildren(); } }, 'Done')),
              );
              this.rotatedKey.hidden = false;
              void this.keys.refresh();
              return `key of ${profile.username} rotated`;
            }),
          );
          const keys = h('button', { type: 'button', 'data-testid': 'trader-keys' }, 'Keys');
          keys.addEventListener('click', () => this.keys.show(t));
          const toggle = h('button', { type: 'button', class: t.disabled ? '' : 'danger', 'data-testid': t.disabled ? 'trader-enable' : 'trader-disable' }, t.disabled ? 'Enable' : 'Disable');
          toggle.addEventListener('click', () =>
            void this.tradersStatus.run(
              toggle,
              () => this.session.call<{ trader: TraderAccount; canceled_orders?: unknown[] }>('POST', `/api/v1/admin/users/${encodeURIComponent(t.trader_id)}/${t.disabled ? 'enable' : 'disable'}`),
              (r) => {
                void this.refresh();
                return r.trader.disabled ? `${r.trader.username} disabled, ${r.canceled_orders?.length ?? 0} orders canceled` : `${r.trader.username} enabled`;
              },
            ),
          );
          return h(
            'tr',
            { 'data-testid': 'trader-account', 'data-trader': t.username, 'data-disabled': String(t.disabled) },
            h('td', null, h('strong', null, t.username)),
            h('td', null, fmtTime(t.created_at)),
            h('td', { class: t.disabled ? 'neg' : 'pos' }, t.disabled ? 'disabled' : 'active'),
            h('td', { class: 'actions' }, keys, rotate, toggle),
          );
        }),
        'No traders yet.',
      ),
    );
  }

  private schedulePanel(): HTMLElement {
    const button = h('button', { type: 'submit', class: 'primary', 'data-testid': 'schedule-add' }, 'Add to schedule');
    const clear = h('button', { type: 'button', 'data-testid': 'schedule-clear' }, 'Clear pending');
    clear.addEventListener('click', () => void this.scheduleStatus.run(clear, () => this.putSchedule([]), () => 'pending entries cleared'));
    const form = h(
      'form',
      {
        class: 'grid-form',
        onsubmit: (e: Event) => {
          e.preventDefault();
          const local = text(this.schedAt);
          const entry: Record<string, unknown> = { at: local === '' ? '' : new Date(local).toISOString(), action: this.schedAction.value };
          const market = text(this.schedMarket);
          if (['enable_market', 'disable_market', 'settle_market'].includes(this.schedAction.value)) entry['market_id'] = market;
          if (this.schedAction.value === 'settle_market') entry['settlement_price'] = Number(text(this.schedPrice));
          if (this.schedAction.value === 'post_message') Object.assign(entry, { level: 'info', body: this.schedBody.value, market: market === '' ? null : market });
          void this.scheduleStatus.run(button, () => this.putSchedule([...this.schedule.pending.map(entryInput), entry]), () => `${this.schedAction.value} scheduled`);
        },
      },
      field('At (local time)', this.schedAt),
      field('Action', this.schedAction),
      field('Market', this.schedMarket),
      field('Settlement price', this.schedPrice),
      field('Message', this.schedBody),
      button,
    );
    return panel('Schedule', { class: 'span-2', 'data-testid': 'schedule-panel' }, form, h('div', { class: 'row' }, clear), this.scheduleStatus.el, this.scheduleBox);
  }

  private async putSchedule(entries: readonly Record<string, unknown>[]): Promise<Schedule> {
    const schedule = await this.session.call<Schedule>('PUT', '/api/v1/admin/schedule', { entries });
    this.schedule = schedule;
    this.renderSchedule();
    return schedule;
  }

  private renderSchedule(): void {
    const rows = [...this.schedule.pending, ...this.schedule.done].map((e) => {
      let remove: HTMLElement | null = null;
      if (e.status === 'pending') {
        const button = h('button', { type: 'button', 'data-testid': 'schedule-remove' }, 'Remove');
        button.addEventListener('click', () =>
          void this.scheduleStatus.run(button, () => this.putSchedule(this.schedule.pending.filter((p) => p.entry_id !== e.entry_id).map(entryInput)), () => 'entry removed'),
        );
        remove = button;
      }
      return h(
        'tr',
        { 'data-testid': 'schedule-entry', 'data-status': e.status, 'data-action': e.action },
        h('td', null, fmtTime(e.at)),
        h('td', null, describeEntry(e)),
        h('td', { class: e.status === 'failed' ? 'neg' : e.status === 'ran' ? 'pos' : '' }, e.status),
        h('td', null, e.seq === null ? '' : `seq ${e.seq}`, e.error === null ? '' : ` ${e.error}`),
        h('td', { class: 'actions' }, remove),
      );
    });
    fill(this.scheduleBox, table(['At', 'Action', 'Status', 'Result', ''], rows, 'Nothing scheduled.'));
  }

  private officialPanel(): HTMLElement {
    const button = h('button', { type: 'submit', class: 'primary', 'data-testid': 'freeze-submit' }, 'Freeze the leaderboard');
    const form = h(
      'form',
      {
        class: 'row',
        onsubmit: (e: Event) => {
          e.preventDefault();
          const label = text(this.freezeLabel);
          void this.freezeStatus.run(button, () => this.session.call<OfficialStandings>('POST', '/api/v1/admin/leaderboard/freeze', label === '' ? {} : { label }), (o) => {
            this.freezeLabel.value = '';
            void this.refresh();
            return `standings "${o.label}" frozen at seq ${o.as_of_seq}`;
          });
        },
      },
      this.freezeLabel,
      button,
    );
    return panel(
      'Official leaderboard',
      { class: 'span-2', 'data-testid': 'official-panel' },
      h('p', { class: 'muted' }, 'Records the standings as they are now, with the log’s hash: anyone with the log can prove them (npm run replay -- prove --label ...).'),
      form,
      this.freezeStatus.el,
      this.officialBox,
    );
  }

  private renderOfficial(list: readonly OfficialStandings[]): void {
    fill(
      this.officialBox,
      table(
        ['Label', 'As of seq', 'Head hash', 'Rows', ''],
        list.map((o) =>
          h(
            'tr',
            { 'data-testid': 'official-standings', 'data-label': o.label },
            h('td', null, h('strong', null, o.label)),
            h('td', { class: 'num' }, o.as_of_seq),
            h('td', null, h('code', { title: o.head_hash }, `${o.head_hash.slice(0, 12)}…`)),
            h('td', { class: 'num' }, o.rows.length),
            h('td', null, h('a', { href: `/api/v1/leaderboard/official?label=${encodeURIComponent(o.label)}&format=csv`, download: `${o.label}.csv` }, 'CSV')),
          ),
        ),
        'Nothing frozen yet.',
      ),
    );
  }
}
