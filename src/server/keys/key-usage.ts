// When each API key was last used (competition-rules.md, "Keys": `last_used_at`). A use is not a change
// of the exchange's state, so it is not an event: an event per request would grow the hash-chained log
// with every poll of every bot, and make the audit replay them. The service keeps the last use of each
// key here, in memory, where authenticating costs a clock read and a map lookup; with PostgreSQL,
// postgres-key-usage.ts writes what changed every few seconds and reads it back at start.
import { formatMicros, parseMicros } from '../clock.ts';

/** A use within this long of the last one recorded is not recorded (nor written out again). */
export const USE_RESOLUTION_MS = 1000;

export class KeyUsage {
  /** key_id -> the last use, in ms since 1970. */
  private readonly last = new Map<string, number>();
  /** Keys used since the last takeChanged(). */
  private readonly changed = new Set<string>();
  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  /**
   * The key was used now (a request it authenticated, a WebSocket authenticate or op); true when this use
   * was recorded (false: within a second of the last one).
   */
  touch(keyId: string): boolean {
    const now = this.now();
    const last = this.last.get(keyId);
    if (last !== undefined && now - last < USE_RESOLUTION_MS) return false;
    this.last.set(keyId, now);
    this.changed.add(keyId);
    return true;
  }

  /** The last use, RFC 3339 UTC with microseconds; null for a key never used. */
  lastUsedAt(keyId: string): string | null {
    const last = this.last.get(keyId);
    return last === undefined ? null : formatMicros(last * 1000);
  }

  /** Uses recorded elsewhere (read back at start): each is kept where it is later than what is known. */
  load(uses: Iterable<readonly [keyId: string, lastUsedAt: string]>): void {
    for (const [keyId, at] of uses) {
      const ms = Math.floor(parseMicros(at) / 1000);
      if (!((this.last.get(keyId) ?? -1) >= ms)) this.last.set(keyId, ms);
    }
  }

  /** The uses recorded since the last call, to be written out; they are not changes any more. */
  takeChanged(): [keyId: string, lastUsedAt: string][] {
    const out: [string, string][] = [];
    for (const keyId of this.changed) out.push([keyId, this.lastUsedAt(keyId) as string]);
    this.changed.clear();
    return out;
  }

  /** Uses that could not be written: changes again, for the next write. */
  giveBack(keyIds: Iterable<string>): void {
    for (const keyId of keyIds) if (this.last.has(keyId)) this.changed.add(keyId);
  }
}
