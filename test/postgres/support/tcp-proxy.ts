// A TCP proxy between the service and PostgreSQL, so tests can cut the database away (an outage) and
// lose a reply at the worst moment (right after COMMIT went out).
import net from 'node:net';

export class TcpProxy {
  private readonly targetHost: string;
  private readonly targetPort: number;
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  private down = false;
  private cutAfterCommits = 0;
  /** How many connections were cut right after forwarding a COMMIT. */
  commitsCut = 0;
  port = 0;

  constructor(targetUrl: string) {
    const url = new URL(targetUrl);
    this.targetHost = url.hostname;
    this.targetPort = Number(url.port || 5432);
  }

  async start(): Promise<void> {
    this.server = net.createServer((client) => this.accept(client));
    await new Promise<void>((resolve) => (this.server as net.Server).listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
  }

  /** The same database URL, through the proxy. */
  via(databaseUrl: string): string {
    const url = new URL(databaseUrl);
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString();
  }

  private accept(client: net.Socket): void {
    if (this.down) {
      client.destroy();
      return;
    }
    const upstream = net.connect(this.targetPort, this.targetHost);
    this.sockets.add(client);
    this.sockets.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    client.on('error', drop);
    upstream.on('error', drop);
    client.on('close', drop);
    upstream.on('close', drop);
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    client.on('data', (chunk: Buffer) => {
      if (this.cutAfterCommits > 0 && isCommit(chunk)) {
        this.cutAfterCommits--;
        this.commitsCut++;
        // The server gets the COMMIT (and commits); the client never hears back.
        upstream.end(chunk);
        client.destroy();
        this.sockets.delete(client);
        return;
      }
      upstream.write(chunk);
    });
  }

  /** The outage: every connection drops, new ones are refused until restore(). */
  cut(): void {
    this.down = true;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }

  restore(): void {
    this.down = false;
  }

  /** The next n COMMITs reach the server, and their connections are cut before the reply. */
  cutAfterNextCommits(n: number): void {
    this.cutAfterCommits = n;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => (this.server === null ? resolve() : this.server.close(() => resolve())));
  }
}

/** A simple-protocol Query message ('Q', length, text) whose text is COMMIT. */
function isCommit(chunk: Buffer): boolean {
  if (chunk.length < 6 || chunk[0] !== 0x51) return false;
  return /^commit;?\0$/i.test(chunk.subarray(5).toString('latin1').trim());
}
