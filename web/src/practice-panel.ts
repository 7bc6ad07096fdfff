// A practice exchange's play (docs/practice.md), above every view: the simulated clock, the speed, how
// much of the recording has played and how much diverged, and the report once it has played to its
// end. Shown only where /health says the exchange is a practice one (an ordinary exchange is asked
// nothing more); with the operator's token stored, pause, resume and speed are here too.
import type { PracticeStatus } from '../../src/server/practice/practice-control.ts';
import type { PracticeReport } from '../../src/server/practice/practice-report.ts';
import { ApiError, apiRequest, describeError } from './api.ts';
import { h, fill } from './dom.ts';
import { fmtInt, fmtSigned, signClass } from './format.ts';
import { credentials } from './storage.ts';
import { table } from './widgets.ts';

export type { PracticeReport, PracticeStatus };

const POLL_MS = 1_000;
const SPEEDS = ['1', '2', '5', '10', '60', 'max'] as const;

export class PracticePanel {
  readonly el = h('section', { class: 'practice', 'data-testid': 'practice', hidden: true });
  private status: PracticeStatus | null = null;
  private error: string | null = null;

  /** Asks /health once whether this is a practice exchange, and follows the play if so. */
  async start(): Promise<void> {
    let health: { practice?: PracticeStatus };
    try {
      health = await apiRequest<{ practice?: PracticeStatus }>('GET', '/health');
    } catch {
      return;
    }
    if (health.practice === undefined) return;
    this.show(health.practice);
    window.setInterval(() => void this.refresh(), POLL_MS);
  }

  private async refresh(): Promise<void> {
    // A finished play changes no more.
    if (this.status?.state === 'finished') return;
    try {
      this.show(await apiRequest<PracticeStatus>('GET', '/api/v1/practice'));
    } catch (err) {
      this.error = describeError(err);
      this.render();
    }
  }

  private show(status: PracticeStatus): void {
    this.status = status;
    this.error = null;
    this.render();
  }

  private async steer(path: string, body?: unknown): Promise<void> {
    try {
      this.show(await apiRequest<PracticeStatus>('POST', `/api/v1/practice/${path}`, { adminToken: credentials.adminToken(), body }));
    } catch (err) {
      this.error = err instanceof ApiError && err.status === 401 ? 'the operator token was refused: sign in again in the Operator view' : describeError(err);
      this.render();
    }
  }

  private render(): void {
    const s = this.status;
    if (s === null) return;
    this.el.hidden = false;
    const share = s.commands_total === 0 ? 1 : s.commands_replayed / s.commands_total;
    const bar = h('div', { class: 'practice-bar' }, h('div', { class: 'practice-done' }));
    (bar.firstChild as HTMLElement).style.width = `${(share * 100).toFixed(1)}%`;
    const operator = credentials.adminToken() !== null && s.state !== 'finished';
    fill(
      this.el,
      h(
        'div',
        { class: 'practice-line' },
        h('strong', null, 'Practice'),
        h('span', { class: `badge ${s.state}`, 'data-testid': 'practice-state' }, s.state),
        h('span', null, 'simulated ', h('time', { 'data-testid': 'practice-clock', datetime: s.simulated_time }, s.simulated_time.replace('T', ' ').replace(/\.\d+Z$/, ' UTC'))),
        h('span', { 'data-testid': 'practice-speed' }, s.speed === 'max' ? 'speed max' : `speed ×${s.speed}`),
        h('span', { 'data-testid': 'practice-progress', 'data-replayed': s.commands_replayed, 'data-total': s.commands_total }, `${fmtInt(s.commands_replayed)} / ${fmtInt(s.commands_total)} recorded commands`),
        h('span', { 'data-testid': 'practice-diverged' }, `${fmtInt(s.diverged)} diverged`),
        operator
          ? h(
              'span',
              { class: 'practice-controls' },
              s.state === 'running' ? h('button', { 'data-testid': 'practice-pause', onclick: () => void this.steer('pause') }, 'Pause') : h('button', { 'data-testid': 'practice-resume', onclick: () => void this.steer('resume') }, 'Resume'),
              h('select', { 'data-testid': 'practice-speed-select', onchange: (e: Event) => void this.steer('speed', { speed: speedValue((e.target as HTMLSelectElement).value) }) }, SPEEDS.map((v) => h('option', { value: v, selected: String(s.speed) === v }, v === 'max' ? 'max' : `×${v}`))),
            )
          : null,
      ),
      bar,
      this.error === null ? null : h('div', { class: 'status-line err' }, this.error),
      s.report === undefined ? null : report(s.report),
    );
  }
}

function speedValue(v: string): number | 'max' {
  return v === 'max' ? 'max' : Number(v);
}

function report(r: PracticeReport): HTMLElement {
  return h(
    'div',
    { class: 'practice-report', 'data-testid': 'practice-report', 'data-faithful': String(r.faithful) },
    h(
      'p',
      null,
      h('strong', null, `You (${r.you.username}): rank ${r.you.rank}, `, h('span', { class: signClass(r.you.pnl), 'data-testid': 'practice-you-pnl' }, fmtSigned(r.you.pnl))),
      ` · ${r.faithful ? 'faithful: no recorded command diverged' : `${fmtInt(r.diverged)} recorded commands diverged`}`,
    ),
    table(
      ['#', 'Trader', 'Practice PnL', 'Recorded PnL'],
      r.standings.map((row) =>
        h(
          'tr',
          { class: row.trader_id === r.you.trader_id ? 'me' : null, 'data-trader': row.username },
          h('td', null, row.rank),
          h('td', null, row.username),
          h('td', { class: `num ${signClass(row.practice_pnl)}` }, fmtSigned(row.practice_pnl)),
          h('td', { class: `num ${row.recorded_pnl === null ? '' : signClass(row.recorded_pnl)}` }, row.recorded_pnl === null ? '–' : fmtSigned(row.recorded_pnl)),
        ),
      ),
      'No traders.',
      [2, 3],
    ),
  );
}
