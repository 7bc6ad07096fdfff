// Admission stamps: the time and the new ids a command enters the core with. The clock is strictly
// increasing at microsecond resolution, so every command has its own timestamp and lists ordered by
// time come out in admission order, even when the wall clock stalls or steps back.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { timeText } from '../events/time-code.ts';

export interface Stamp {
  readonly time: string;
  uuid(): string;
}

export class AdmissionClock {
  private lastMicros = 0;
  private readonly origin = performance.timeOrigin;

  /** Microseconds since the epoch, strictly greater than the last value returned. */
  nowMicros(): number {
    const wall = Math.floor((this.origin + performance.now()) * 1000);
    this.lastMicros = wall > this.lastMicros ? wall : this.lastMicros + 1;
    return this.lastMicros;
  }

  /** Continues after a recovered log's last time, so stamps never go back past it. */
  advanceTo(time: string): void {
    const micros = parseMicros(time);
    if (micros > this.lastMicros) this.lastMicros = micros;
  }

  stamp(): Stamp {
    return { time: formatMicros(this.nowMicros()), uuid: flatUuid };
  }
}

/**
 * A random UUID as a flat string. Node's randomUUID joins its hex pieces with `+`, which makes a rope
 * (a ConsString), and these ids (orders, fills, traders) go into every view and frame a client is sent:
 * JSON.stringify of an object holding a rope leaves V8's fast path, at two to three times the cost.
 * toLowerCase of the lowercase id is the same text, written flat, for ~0.1 µs.
 */
export function flatUuid(): string {
  return randomUUID().toLowerCase();
}

/**
 * RFC 3339 UTC with exactly six fractional digits: the core's time code (src/events/time-code.ts) for
 * every time a clock makes; values past what it takes (far years, NaN) as a Date writes them, or its
 * RangeError.
 */
export function formatMicros(micros: number): string {
  if (Number.isSafeInteger(micros)) return timeText(micros);
  const second = Math.floor(micros / 1_000_000);
  return `${new Date(second * 1000).toISOString().slice(0, 20)}${String(micros - second * 1_000_000).padStart(6, '0')}Z`;
}

export function parseMicros(time: string): number {
  const m = /^(.*\.\d{3})(\d{3})Z$/.exec(time);
  if (m === null) return Date.parse(time) * 1000;
  return Date.parse(`${m[1]}Z`) * 1000 + Number(m[2]);
}

export function nowRfc3339(): string {
  return formatMicros(Math.floor((performance.timeOrigin + performance.now()) * 1000));
}

/** `exch_` and 32 lowercase hex characters from a cryptographic source. */
export function newApiKey(): string {
  return `exch_${randomBytes(16).toString('hex')}`;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
