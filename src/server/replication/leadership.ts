// Who admits commands on this node. A follower never does; a standby does once it holds the writer
// lock and has folded the last committed event; a cluster leader stops the moment it loses its
// database session (it can no longer know it still holds the lock) and starts again only once it has
// taken the lock back on a log that is still the one it wrote.
import type { DomainError } from '../../commands/errors.ts';
import type { Role } from '../config.ts';
import type { AdmissionGate } from '../service.ts';
import { NotLeaderError } from './not-leader.ts';

export class Leadership implements AdmissionGate {
  /** The role this node plays now (a standby becomes leader on promotion). */
  role: Role;
  private readonly leaderUrl: string | null;
  private fenced: string | null = null;

  constructor(role: Role, leaderUrl: string | null) {
    this.role = role;
    this.leaderUrl = leaderUrl;
  }

  get admitting(): boolean {
    return this.role === 'leader' && this.fenced === null;
  }

  /** Why a leader stopped admitting, or null. */
  get fence(): string | null {
    return this.fenced;
  }

  refusal(): DomainError | null {
    if (this.role === 'follower') return new NotLeaderError(this.leaderUrl, 'this node is a follower: send commands to the leader');
    if (this.role === 'standby') return new NotLeaderError(this.leaderUrl, 'this node is a standby: send commands to the leader');
    if (this.fenced !== null) return new NotLeaderError(this.leaderUrl, `this node stopped admitting commands: ${this.fenced}`);
    return null;
  }

  stopAdmitting(why: string): void {
    this.fenced ??= why;
  }

  resumeAdmitting(): void {
    this.fenced = null;
  }

  promote(): void {
    this.role = 'leader';
    this.fenced = null;
  }
}
