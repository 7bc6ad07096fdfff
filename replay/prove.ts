// Proves official standings: reads and verifies the log, folds it up to the seq a LeaderboardFrozen
// event names, recomputes the leaderboard there, and checks both the standings and the chain hash the
// event recorded against what the log itself gives. Nothing the server says is trusted.
import { canonicalJson } from '../src/events/canonical.ts';
import { Exchange } from '../src/commands/exchange.ts';
import { upcast } from '../src/events/upcasters/upcast.ts';
import type { FrozenLeaderboardFact } from '../src/events/types.ts';
import { source, type RebuildOptions } from './rebuild.ts';
import { LogFault, LogVerifier } from './verify.ts';

export interface ProofResult {
  readonly label: string;
  /** The seq of the LeaderboardFrozen event. */
  readonly seq: number;
  readonly asOfSeq: number;
  readonly rows: number;
  readonly recordedHash: string;
  readonly logHash: string;
  /** Empty when proved; otherwise every mismatch, in words. */
  readonly problems: readonly string[];
}

function firstRowDifference(recorded: FrozenLeaderboardFact['rows'], recomputed: readonly unknown[]): string {
  const n = Math.max(recorded.length, recomputed.length);
  for (let i = 0; i < n; i++) {
    const a = canonicalJson(recorded[i] ?? null);
    const b = canonicalJson(recomputed[i] ?? null);
    if (a !== b) return `row ${i + 1}: recorded ${a}, recomputed ${b}`;
  }
  return 'rows differ';
}

/**
 * The proof of the standings with this label (or of the newest, without one); null when the log holds
 * no such standings. Throws LogFault when the log itself is faulty.
 */
export async function prove(o: RebuildOptions & { readonly label?: string | undefined }): Promise<ProofResult | null> {
  const exchange = new Exchange({ deltaRing: 0 });
  const verifier = new LogVerifier();
  let result: ProofResult | null = null;
  reading: for await (const batch of source(o)) {
    for (const record of batch) {
      const before = verifier.headHash;
      const recorded = verifier.check(record);
      const event = upcast(recorded);
      if (event.type === 'LeaderboardFrozen' && (o.label === undefined || event.data.label === o.label)) {
        const state = exchange.state;
        const problems: string[] = [];
        if (event.data.as_of_seq !== state.seq) problems.push(`as_of_seq ${event.data.as_of_seq} is not the seq before the freeze (${state.seq})`);
        if (event.data.head_hash !== before) problems.push(`head hash recorded ${event.data.head_hash}, the log's at seq ${state.seq} is ${before}`);
        const recomputed = state.leaderboard.at(state.seq);
        if (canonicalJson(recomputed) !== canonicalJson(event.data.rows)) problems.push(`standings differ: ${firstRowDifference(event.data.rows, recomputed)}`);
        result = { label: event.data.label, seq: event.seq, asOfSeq: event.data.as_of_seq, rows: event.data.rows.length, recordedHash: event.data.head_hash, logHash: before, problems };
        // A label is unique: its standings are found, the rest of the log does not matter to them.
        if (o.label !== undefined) break reading;
      }
      try {
        exchange.fold(recorded);
      } catch (err) {
        throw new LogFault(recorded.seq, `the event cannot be applied to the state before it: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }
  return result;
}
