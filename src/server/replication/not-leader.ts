// The refusal of a node that does not admit commands (a follower, a standby, or a leader that lost its
// database session). It names the leader, so a client knows where to send the command instead.
import { DomainError, ERRORS } from '../../commands/errors.ts';

export class NotLeaderError extends DomainError {
  /** The leader's public URL (LEADER_URL), or null when this node was not told. */
  readonly leader: string | null;

  constructor(leader: string | null, why?: string) {
    const text = `${why ?? ERRORS.not_leader.message}${leader === null ? '' : ` (${leader})`}`;
    super('not_leader', text);
    this.leader = leader;
  }
}
