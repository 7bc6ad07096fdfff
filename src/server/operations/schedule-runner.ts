// Runs the schedule: one timer for the next pending entry. When an entry is due it is admitted as an
// ordinary command (RunScheduledAction), so the log shows when it ran and which entry it was; the
// schedule itself is folded from the log, so after a restart whatever is already due runs at once, in
// order, and an entry that ran before the restart is no longer pending and never runs twice.
import { isDomainError } from '../../commands/errors.ts';
import type { ExchangeService } from '../service.ts';
import type { Logger } from '../logger.ts';
import { parseMicros } from '../clock.ts';

/** setTimeout's largest delay; a later entry is simply re-armed when this one wakes. */
const MAX_DELAY_MS = 2 ** 31 - 1;
const RETRY_MS = 1000;

export class ScheduleRunner {
  private readonly service: ExchangeService;
  private readonly logger: Logger;
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private stopped = false;

  constructor(service: ExchangeService, logger: Logger) {
    this.service = service;
    this.logger = logger;
    // A new schedule may bring an earlier entry forward.
    service.state.events$.subscribe((e) => {
      if (e.type === 'ScheduleSet' && !this.running) this.arm(0);
    });
  }

  start(): void {
    this.arm(0);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private arm(minDelayMs: number): void {
    if (this.stopped) return;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const next = this.service.state.schedule.pendingList()[0];
    if (next === undefined) return;
    const delay = Math.max(minDelayMs, Math.ceil(parseMicros(next.at) / 1000 - Date.now()));
    this.timer = setTimeout(() => void this.fire(), Math.min(delay, MAX_DELAY_MS));
    this.timer.unref();
  }

  private async fire(): Promise<void> {
    this.timer = null;
    if (this.running || this.stopped) return;
    this.running = true;
    let retryIn = 0;
    try {
      for (;;) {
        const next = this.service.state.schedule.pendingList()[0];
        if (next === undefined || this.stopped || Date.now() * 1000 < parseMicros(next.at)) break;
        try {
          const event = await this.service.execute((s) => ({ type: 'RunScheduledAction', time: s.time, entry_id: next.entry_id, message_id: s.uuid() }));
          const failed = event.type === 'ScheduledActionFailed' ? event.data : null;
          if (failed === null) this.logger.info({ entry_id: next.entry_id, action: next.action.action, seq: event.seq, type: event.type }, 'scheduled action ran');
          else this.logger.warn({ entry_id: next.entry_id, action: next.action.action, seq: event.seq, code: failed.code, message: failed.message }, 'scheduled action refused');
        } catch (err) {
          if (isDomainError(err) && err.code === 'service_unavailable') return;
          // Cluster mode: only the leader runs the schedule; a follower or standby keeps checking, quietly,
          // so that a standby promoted past an entry's time runs it (what the leader ran, it folds away).
          if (isDomainError(err) && err.code === 'not_leader') {
            retryIn = RETRY_MS;
            break;
          }
          // Not due by the admission clock yet (a hair behind the wall clock), or the writer is stopped.
          const notDue = isDomainError(err) && err.code === 'schedule_entry_not_due';
          if (!notDue) this.logger.error({ err, entry_id: next.entry_id }, 'running a scheduled action failed; retrying');
          retryIn = notDue ? 1 : RETRY_MS;
          break;
        }
      }
    } finally {
      this.running = false;
      this.arm(retryIn);
    }
  }
}
