// One WebSocket for the whole page, kept alive: on a close or a silent peer it reconnects with backoff,
// and every `onOpen` hook runs again on each new connection (authenticate, resubscribe), so the views
// never deal with a lost connection themselves.
import { parseServerMessage, type ServerMessage } from './server-messages.ts';

export type SocketStatus = 'connecting' | 'open' | 'reconnecting';

/** The server sends a heartbeat every 15 s; two missed ones mean the connection is dead. */
const SILENCE_LIMIT_MS = 35_000;
const MAX_BACKOFF_MS = 5_000;

export class ExchangeSocket {
  private readonly url: string;
  private ws: WebSocket | null = null;
  private readonly messageListeners = new Set<(message: ServerMessage) => void>();
  private readonly openHooks = new Set<() => void>();
  private readonly statusListeners = new Set<(status: SocketStatus) => void>();
  private backoffMs = 250;
  private lastFrameAt = 0;
  private watchdog: number | null = null;
  private retry: number | null = null;
  private stopped = false;
  status: SocketStatus = 'connecting';
  /** Connections opened so far; the header shows it so a reconnect is visible. */
  connects = 0;

  constructor(url: string) {
    this.url = url;
  }

  start(): void {
    this.stopped = false;
    this.open();
    this.watchdog = window.setInterval(() => {
      if (this.ws !== null && this.ws.readyState === WebSocket.OPEN && Date.now() - this.lastFrameAt > SILENCE_LIMIT_MS) this.ws.close();
    }, 5_000);
  }

  stop(): void {
    this.stopped = true;
    if (this.watchdog !== null) window.clearInterval(this.watchdog);
    if (this.retry !== null) window.clearTimeout(this.retry);
    this.ws?.close();
  }

  /** Sends when connected; otherwise drops the frame (the open hooks re-establish state on reconnect). */
  send(frame: object): boolean {
    if (this.ws === null || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(frame));
    return true;
  }

  get isOpen(): boolean {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  onMessage(listener: (message: ServerMessage) => void): () => void {
    this.messageListeners.add(listener);
    return () => this.messageListeners.delete(listener);
  }

  /** Runs now if connected, and after every (re)connect. */
  onOpen(hook: () => void): () => void {
    this.openHooks.add(hook);
    if (this.isOpen) hook();
    return () => this.openHooks.delete(hook);
  }

  onStatus(listener: (status: SocketStatus) => void): void {
    this.statusListeners.add(listener);
  }

  private setStatus(status: SocketStatus): void {
    this.status = status;
    for (const l of this.statusListeners) l(status);
  }

  private open(): void {
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.addEventListener('open', () => {
      this.connects += 1;
      this.backoffMs = 250;
      this.lastFrameAt = Date.now();
      this.setStatus('open');
      for (const hook of this.openHooks) hook();
    });
    ws.addEventListener('message', (event: MessageEvent) => {
      this.lastFrameAt = Date.now();
      if (typeof event.data !== 'string') return;
      const message = parseServerMessage(event.data);
      if (message === null) return;
      for (const l of this.messageListeners) l(message);
    });
    ws.addEventListener('close', () => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.stopped) return;
      this.setStatus('reconnecting');
      this.retry = window.setTimeout(() => {
        this.retry = null;
        this.open();
      }, this.backoffMs);
      this.backoffMs = Math.min(this.backoffMs * 2, MAX_BACKOFF_MS);
    });
  }
}

/** ws:// or wss:// of the page's own origin. */
export function socketUrl(): string {
  return `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}/ws`;
}
