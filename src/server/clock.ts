// Admission stamps: the time and the new ids a command enters the core with. The clock is strictly
// increasing at microsecond resolution, so every command has its own timestamp and lists ordered by
// time come out in admission order, even when the wall clock stalls or steps back.
import { createHash, randomBytes, randomFillSync } from 'node:crypto';
import { timeText } from '../events/time-code.ts';

export interface Stamp {
  readonly time: string;
  uuid(): string;
}

export class AdmissionClock {
  /** The last stamp given (microseconds since the epoch): every later one is past it. */
  protected lastMicros = 0;
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

  /**
   * The time as this clock tells it, without taking a stamp: what the doors show as "now" (health, the
   * WebSocket heartbeat, the default end of a candle range). A practice exchange's clock
   * (src/server/practice/) tells the simulated time here, so everything reads as in the recording.
   */
  now(): string {
    return formatMicros(Math.max(this.lastMicros, Math.floor((this.origin + performance.now()) * 1000)));
  }
}

/**
 * A random (version 4) UUID as a flat string. Node's randomUUID joins its hex pieces with `+`, which
 * makes a rope (a ConsString), and these ids (orders, fills, traders) go into every view and frame a
 * client is sent: JSON.stringify of an object holding a rope leaves V8's fast path, at two to three
 * times the cost. Here the text is written as bytes into a buffer and read back as one latin1 string,
 * which V8 makes a sequential string (what JSON.stringify's fast path takes: a rope, even flattened in
 * place, is not one), in less than half the time of randomUUID().toLowerCase() (0.23 against 0.51 µs
 * in one run, 0.14 against 0.33 in another: scratch measurements, 2026-11-26), and every
 * order submitted takes two (its id and its fills' seed). The random bytes come from the same CSPRNG
 * as randomUUID's (randomFillSync), drawn a pool at a time as randomUUID draws them, but a larger pool:
 * a call costs about the same for 2 KiB as for 16 KiB (5.6 against 8.1 µs here, a system call each),
 * so 1,024 ids a draw instead of randomUUID's 128 cut that share of an id from ~44 to ~8 ns; in a busy
 * server each call cost more still (randomFillSync was 1.8% of the matching thread under WS order entry).
 */
export function flatUuid(): string {
  if (uuidAt === uuidPool.length) {
    randomFillSync(uuidPool);
    uuidAt = 0;
  }
  const at = uuidAt;
  uuidAt += 16;
  for (let i = 0; i < 16; i++) {
    let byte = uuidPool[at + i] as number;
    // RFC 9562: the version (4) in the high nibble of byte 6, the variant (10) in the top bits of byte 8.
    if (i === 6) byte = (byte & 0x0f) | 0x40;
    else if (i === 8) byte = (byte & 0x3f) | 0x80;
    const to = UUID_DIGIT_AT[i] as number;
    uuidText[to] = HEX_DIGIT[byte >> 4] as number;
    uuidText[to + 1] = HEX_DIGIT[byte & 15] as number;
  }
  return uuidText.toString('latin1', 0, 36);
}

const uuidPool = Buffer.alloc(16 * 1024);
let uuidAt = uuidPool.length;
/**
 * The text being written: the four dashes stay where they are, the digits are written over. Its own
 * memory (Buffer.alloc), not a slice of Buffer's shared pool, where another Buffer's stray write could
 * reach it.
 */
const uuidText = Buffer.alloc(36, '00000000-0000-0000-0000-000000000000', 'latin1');
const HEX_DIGIT = Buffer.from('0123456789abcdef', 'latin1');
/** Where byte i's two digits go in the text (8-4-4-4-12). */
const UUID_DIGIT_AT: readonly number[] = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];

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
