// The real service as a child process (`node src/server/main.ts`), for what only a separate process
// can show: kill -9 in the middle of work, and a benchmark whose load generator does not share the
// server's event loop.
import { spawn, type ChildProcess } from 'node:child_process';
import { checkedFetch } from '../../support/contract.ts';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const PROCESS_ADMIN_TOKEN = 'pg-test-admin-token';

export interface ServerProcess {
  readonly url: string;
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  /** Everything written to stderr so far. */
  stderr(): string;
  kill(signal: NodeJS.Signals): Promise<number | null>;
}

export async function spawnServer(env: Record<string, string>, timeoutMs = 20_000): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['src/server/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, BIND_ADDR: '127.0.0.1:0', LOG_LEVEL: 'info', ADMIN_API_TOKEN: PROCESS_ADMIN_TOKEN, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start within ${timeoutMs} ms: ${err}`));
    }, timeoutMs);
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      let nl = out.indexOf('\n');
      while (nl >= 0) {
        const line = out.slice(0, nl);
        out = out.slice(nl + 1);
        nl = out.indexOf('\n');
        try {
          const entry = JSON.parse(line) as { msg?: string; port?: number };
          if (entry.msg === 'exchange listening' && typeof entry.port === 'number') {
            clearTimeout(timer);
            resolve(entry.port);
          }
        } catch {
          // not a log line
        }
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${String(code)} before listening: ${err}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    exited,
    stderr: () => err,
    kill: (signal) => {
      child.kill(signal);
      return exited;
    },
  };
}

export interface Reply<T> {
  readonly status: number;
  readonly body: T;
}

/** JSON over fetch with the admin token or a trader's key. */
export async function call<T = unknown>(base: string, method: string, path: string, auth: { admin?: string; apiKey?: string } = {}, body?: unknown): Promise<Reply<T>> {
  const headers: Record<string, string> = {};
  if (auth.admin !== undefined) headers['authorization'] = `Bearer ${auth.admin}`;
  if (auth.apiKey !== undefined) headers['x-api-key'] = auth.apiKey;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await checkedFetch(base + path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  return { status: res.status, body: (text === '' ? null : JSON.parse(text)) as T };
}
