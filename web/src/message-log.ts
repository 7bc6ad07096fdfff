// Operator messages as they arrive over the socket: broadcasts reach every connection, targeted ones
// only a connection authenticated as their trader.
import type { AdminMessage } from './api-types.ts';
import type { ExchangeSocket } from './exchange-socket.ts';

const KEEP = 50;

export class MessageLog {
  /** Newest first. */
  readonly messages: AdminMessage[] = [];
  private readonly listeners = new Set<() => void>();

  constructor(socket: ExchangeSocket) {
    socket.onMessage((m) => {
      if (m.type !== 'admin_message') return;
      if (this.messages.some((x) => x.message_id === m.message.message_id)) return;
      this.messages.unshift(m.message);
      if (this.messages.length > KEEP) this.messages.length = KEEP;
      for (const l of this.listeners) l();
    });
  }

  onChange(listener: () => void): void {
    this.listeners.add(listener);
  }
}
