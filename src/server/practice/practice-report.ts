// The report of a practice run (docs/practice.md, "The report"): the team's marked net PnL and rank as
// the leaderboard ranks them at the end of the played part, and every trader's figure beside the one
// the recording had at that point.
import type { LeaderboardRow } from '../../projections/views.ts';

export interface PracticeStanding {
  readonly trader_id: string;
  readonly username: string;
  /** The trader's marked net PnL in the recording at the end of the played part; null for a trader the recording does not have. */
  readonly recorded_pnl: number | null;
  readonly practice_pnl: number;
  readonly rank: number;
}

export interface PracticeReport {
  /** No recorded command diverged. */
  readonly faithful: boolean;
  /** Recorded commands skipped, or with another outcome than recorded. */
  readonly diverged: number;
  readonly you: { readonly trader_id: string; readonly username: string; readonly pnl: number; readonly rank: number };
  /** Every trader of the practice exchange, in the order of its leaderboard. */
  readonly standings: readonly PracticeStanding[];
}

/** The report from the practice exchange's leaderboard and the recording's, both at the end of the played part. */
export function practiceReport(practice: readonly LeaderboardRow[], recorded: readonly LeaderboardRow[], youId: string, diverged: number): PracticeReport {
  const recordedPnl = new Map(recorded.map((r) => [r.trader_id, r.net_pnl]));
  const you = practice.find((r) => r.trader_id === youId);
  if (you === undefined) throw new Error(`practice report: trader ${youId} is not on the leaderboard`);
  return {
    faithful: diverged === 0,
    diverged,
    you: { trader_id: you.trader_id, username: you.username, pnl: you.net_pnl, rank: you.rank },
    standings: practice.map((r) => ({ trader_id: r.trader_id, username: r.username, recorded_pnl: recordedPnl.get(r.trader_id) ?? null, practice_pnl: r.net_pnl, rank: r.rank })),
  };
}
