// The bots are ordinary API clients: REST with fetch and the x-api-key header, WebSocket with the
// platform's WebSocket and the documented frames (typed by the dashboard's own protocol module).
// Nothing here reaches into the server's internals, so they run against any exchange.
import { parseServerMessage, type ServerMessage } from '../web/src/server-messages.ts';

export class BotApiError extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export interface Credentials {
  readonly apiKey?: string;
  readonly adminToken?: string;
}

export async function rest<T>(baseUrl: string, method: string, path: string, credentials: Credentials, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  if (credentials.apiKey !== undefined) headers['x-api-key'] = credentials.apiKey;
  if (credentials.adminToken !== undefined) headers['authorization'] = `Bearer ${credentials.adminToken}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) {
    let message = text;
    try {
      message = (JSON.parse(text) as { error?: string }).error ?? text;
    } catch {
      // keep the raw text
    }
    throw new BotApiError(res.status, message);
  }
  return JSON.parse(text) as T;
}

/** A WebSocket that reconnects and runs `onOpen` (authenticate, subscribe) on every connection. */
export class BotSocket {
  /** Resolves the first time the socket opens (after its onOpen frames were sent). */
  readonly opened: Promise<void>;
  private markOpened: () => void = () => {};
  private ws: WebSocket | null = null;
  private closed = false;
  private readonly url: string;
  private readonly onOpen: (socket: BotSocket) => void;
  private readonly onFrame: (message: ServerMessage) => void;

  constructor(url: string, onOpen: (socket: BotSocket) => void, onFrame: (message: ServerMessage) => void) {
    this.url = url;
    this.onOpen = onOpen;
    this.onFrame = onFrame;
    this.opened = new Promise<void>((resolve) => (this.markOpened = resolve));
    this.connect();
  }

  send(frame: object): boolean {
    if (this.ws === null || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(frame));
    return true;
  }

  /** Closes for good (no reconnect); resolves once the socket is closed, or after a second at most. */
  close(): Promise<void> {
    this.closed = true;
    const ws = this.ws;
    if (ws === null || ws.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 1_000);
      ws.addEventListener('close', () => {
        clearTimeout(timer);
        resolve();
      });
      ws.close();
    });
  }

  private connect(): void {
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.addEventListener('open', () => {
      this.onOpen(this);
      this.markOpened();
    });
    ws.addEventListener('message', (event: MessageEvent) => {
      const message = typeof event.data === 'string' ? parseServerMessage(event.data) : null;
      if (message !== null) this.onFrame(message);
    });
    ws.addEventListener('error', () => undefined);
    ws.addEventListener('close', () => {
      if (!this.closed) setTimeout(() => this.connect(), 500);
    });
  }
}
