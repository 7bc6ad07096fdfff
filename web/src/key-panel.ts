// The operator's view of one trader's API keys (competition-rules.md, "Keys"): each key with its scope,
// label, expiry and last use, revoked one by one (its WebSocket sessions close, the others stay), and a
// form to issue another (trade or read, a label, an expiry); the new secret is shown once, never stored.
import type { ApiKey, IssuedKey, TraderAccount } from './api-types.ts';
import { fill, h, text } from './dom.ts';
import { fmtTime, shortId } from './format.ts';
import type { OperatorSession } from './operator-session.ts';
import { field, panel, StatusLine, table } from './widgets.ts';

export class KeyPanel {
  readonly el: HTMLElement;
  private readonly session: OperatorSession;
  private trader: TraderAccount | null = null;

  private readonly heading = h('p', { class: 'muted', 'data-testid': 'keys-of' }, 'Choose “Keys” on a trader above.');
  private readonly listBox = h('div', { 'data-testid': 'key-list' });
  private readonly status = new StatusLine('keys-status');
  private readonly newKey = h('div', { class: 'new-key', hidden: true });
  private readonly scope = h('select', { 'data-testid': 'key-scope' }, h('option', { value: 'read' }, 'read (no orders)'), h('option', { value: 'trade' }, 'trade'));
  private readonly label = h('input', { type: 'text', placeholder: 'e.g. dashboard', 'data-testid': 'key-label' });
  private readonly expires = h('input', { type: 'datetime-local', step: '1', 'data-testid': 'key-expires' });
  private readonly form: HTMLFormElement;

  constructor(session: OperatorSession) {
    this.session = session;
    const button = h('button', { type: 'submit', class: 'primary', 'data-testid': 'key-issue' }, 'Issue key');
    this.form = h(
      'form',
      {
        class: 'grid-form',
        hidden: true,
        onsubmit: (e: Event) => {
          e.preventDefault();
          const trader = this.trader;
          if (trader === null) return;
          const local = text(this.expires);
          const body = { scope: this.scope.value, label: text(this.label) === '' ? null : text(this.label), expires_at: local === '' ? null : new Date(local).toISOString() };
          void this.status.run(button, () => this.session.call<IssuedKey>('POST', `/api/v1/admin/users/${encodeURIComponent(trader.trader_id)}/keys`, body), (issued) => {
            this.label.value = '';
            this.expires.value = '';
            this.showOnce(trader, issued);
            void this.refresh();
            return `${issued.key.scope} key issued to ${trader.username}`;
          });
        },
      },
      field('Scope', this.scope),
      field('Label', this.label),
      field('Expires (local time, optional)', this.expires),
      button,
    );
    this.el = panel('API keys', { class: 'span-2', 'data-testid': 'keys' }, this.heading, this.listBox, this.form, this.status.el, this.newKey);
  }

  /** Shows the trader's keys (and the form to issue one). */
  show(trader: TraderAccount): void {
    this.trader = trader;
    this.newKey.hidden = true;
    this.form.hidden = false;
    this.heading.textContent = `Keys of ${trader.username}: several may work at once (rotate without downtime: issue the new one, move the bots, revoke the old one).`;
    void this.refresh();
    this.el.scrollIntoView({ block: 'nearest' });
  }

  async refresh(): Promise<void> {
    const trader = this.trader;
    if (trader === null || this.session.token === null) return;
    try {
      this.render(trader, await this.session.read<ApiKey[]>(`/api/v1/admin/users/${encodeURIComponent(trader.trader_id)}/keys`));
    } catch (err) {
      this.status.fail(err instanceof Error ? err.message : String(err));
    }
  }

  private render(trader: TraderAccount, keys: readonly ApiKey[]): void {
    fill(
      this.listBox,
      table(
        ['Key', 'Scope', 'Label', 'Created', 'Expires', 'Last used', ''],
        keys.map((k) => {
          const revoke = h('button', { type: 'button', class: 'danger', 'data-testid': 'key-revoke' }, 'Revoke');
          revoke.addEventListener('click', () =>
            void this.status.run(revoke, () => this.session.call<{ key: ApiKey }>('DELETE', `/api/v1/admin/users/${encodeURIComponent(trader.trader_id)}/keys/${encodeURIComponent(k.key_id)}`), (r) => {
              void this.refresh();
              return `key ${shortId(r.key.key_id)} of ${trader.username} revoked; its sessions are closed`;
            }),
          );
          return h(
            'tr',
            { 'data-testid': 'api-key', 'data-key-id': k.key_id, 'data-scope': k.scope },
            h('td', null, h('code', { title: k.key_id }, shortId(k.key_id)), k.primary ? h('span', { class: 'tag', title: 'the key rotate replaces' }, 'primary') : null),
            h('td', { class: k.scope === 'trade' ? 'pos' : '' }, k.scope),
            h('td', null, k.label ?? ''),
            h('td', { class: 'muted' }, fmtTime(k.created_at)),
            h('td', { class: 'muted' }, k.expires_at === null ? 'never' : new Date(k.expires_at).toLocaleString('en-GB')),
            h('td', { class: 'muted', 'data-testid': 'key-last-used' }, k.last_used_at === null ? 'never' : fmtTime(k.last_used_at)),
            h('td', { class: 'actions' }, revoke),
          );
        }),
        `${trader.username} holds no key: issue one below.`,
      ),
    );
  }

  /** The secret exists nowhere else the operator can read it later: shown here until dismissed. */
  private showOnce(trader: TraderAccount, issued: IssuedKey): void {
    fill(
      this.newKey,
      h('p', null, h('strong', null, trader.username), `’s new ${issued.key.scope} key. Copy it now: it is not shown again.`),
      h('code', { 'data-testid': 'issued-api-key' }, issued.api_key),
      h('div', { class: 'row' }, h('button', { type: 'button', onclick: () => { this.newKey.hidden = true; this.newKey.replaceChildren(); } }, 'Done')),
    );
    this.newKey.hidden = false;
  }
}
