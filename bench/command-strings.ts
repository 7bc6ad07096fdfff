// Ids and admission times for benchmark commands, as the server's commands carry them: its ids
// (flatUuid in src/server/clock.ts) and fields parsed from JSON are flat strings, while a template
// literal builds a rope (a ConsString) that costs more to read and leaves JSON.stringify's fast path. The
// values are the same; only their representation in memory is the server's.

export function flat(s: string): string {
  return JSON.parse(JSON.stringify(s)) as string;
}

/** A UUID-shaped id numbered `n`. */
export function uuid(n: number): string {
  return flat(`00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`);
}

let clockMicros = Date.UTC(2026, 0, 1) * 1000;

/** The next admission time of this process's benchmark clock, one microsecond after the last. */
export function nextTime(): string {
  clockMicros += 1;
  const ms = Math.floor(clockMicros / 1000);
  return flat(`${new Date(ms).toISOString().slice(0, 23)}${String(clockMicros % 1000).padStart(3, '0')}Z`);
}
