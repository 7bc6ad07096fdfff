// The operator's console state, with the admin token from localStorage: GET /api/v1/admin/state and
// the admin leaderboard, polled (admin routes are not rate limited) and re-read after every action.
import { ApiError, apiRequest, describeError } from './api.ts';
import type { AdminState, LeaderboardRow } from './api-types.ts';
import { credentials } from './storage.ts';

const POLL_MS = 2_000;

export class OperatorSession {
  token: string | null = credentials.adminToken();
  state: AdminState | null = null;
  leaderboard: readonly LeaderboardRow[] = [];
  error: string | null = null;
  private readonly listeners = new Set<() => void>();
  private timer: number | null = null;

  onChange(listener: () => void): void {
    this.listeners.add(listener);
  }

  start(): void {
    if (this.token !== null) void this.useToken(this.token);
  }

  async useToken(token: string): Promise<boolean> {
    try {
      const state = await apiRequest<AdminState>('GET', '/api/v1/admin/state', { adminToken: token });
      this.token = token;
      this.state = state;
      this.error = null;
      credentials.setAdminToken(token);
      await this.refresh();
      if (this.timer === null) this.timer = window.setInterval(() => void this.refresh(), POLL_MS);
      // refresh() redraws only on a change, and the state just read is not one: show the console now.
      this.emit();
      return true;
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) this.forget();
      this.error = describeError(err);
      this.emit();
      return false;
    }
  }

  forget(): void {
    credentials.setAdminToken(null);
    this.token = null;
    this.state = null;
    this.leaderboard = [];
    if (this.timer !== null) window.clearInterval(this.timer);
    this.timer = null;
    this.emit();
  }

  /** Admin REST call with the session's token; errors propagate in the API's words. */
  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const out = await apiRequest<T>(method, path, { adminToken: this.token, body });
    void this.refresh();
    return out;
  }

  /** The same, with a body sent as is (a CSV upload). */
  async upload<T>(method: string, path: string, text: string, contentType: string): Promise<T> {
    const out = await apiRequest<T>(method, path, { adminToken: this.token, raw: { text, contentType } });
    void this.refresh();
    return out;
  }

  /** A read with the session's token that does not trigger a refresh (the competition panels' own polling). */
  read<T>(path: string): Promise<T> {
    return apiRequest<T>('GET', path, { adminToken: this.token });
  }

  async refresh(): Promise<void> {
    const adminToken = this.token;
    if (adminToken === null) return;
    try {
      const [state, leaderboard] = await Promise.all([
        apiRequest<AdminState>('GET', '/api/v1/admin/state', { adminToken }),
        apiRequest<LeaderboardRow[]>('GET', '/api/v1/admin/leaderboard', { adminToken }),
      ]);
      // Polling every 2 s: redraw only on a change, so buttons are not rebuilt under the pointer.
      const changed = JSON.stringify([state, leaderboard]) !== JSON.stringify([this.state, this.leaderboard]) || this.error !== null;
      this.state = state;
      this.leaderboard = leaderboard;
      this.error = null;
      if (!changed) return;
    } catch (err) {
      this.error = describeError(err);
    }
    this.emit();
  }

  private emit(): void {
    for (const l of this.listeners) l();
  }
}
