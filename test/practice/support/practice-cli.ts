// The practice CLI as a child process, as a team runs it: its stdout read line by line (the ready line,
// then the report), its stderr kept for the messages.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';

export const PRACTICE_CLI = new URL('../../../practice/cli.ts', import.meta.url).pathname;

export class PracticeProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly lines: string[] = [];
  stderr = '';
  readonly exited: Promise<number | null>;
  private waiters: (() => void)[] = [];

  constructor(args: readonly string[], env: Record<string, string> = {}) {
    this.child = spawn(process.execPath, [PRACTICE_CLI, ...args], { env: { ...process.env, LOG_LEVEL: 'silent', ...env } });
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      this.lines.push(line);
      for (const w of this.waiters.splice(0)) w();
    });
    this.child.stderr.on('data', (d: Buffer) => (this.stderr += d.toString()));
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => {
      for (const w of this.waiters.splice(0)) w();
      resolve(code);
    }));
  }

  /** The n-th line of stdout (from 0), parsed; throws when the process ends first. */
  async line<T = Record<string, unknown>>(n: number): Promise<T> {
    let exited = false;
    void this.exited.then(() => (exited = true));
    while (this.lines.length <= n) {
      if (exited) throw new Error(`practice exited before line ${n}: ${this.stderr}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
    return JSON.parse(this.lines[n] as string) as T;
  }

  async stop(): Promise<number | null> {
    this.child.kill('SIGTERM');
    return this.exited;
  }
}

/** Runs the CLI to its end: exit code, stdout lines, stderr. */
export async function practiceRun(args: readonly string[], env: Record<string, string> = {}): Promise<{ code: number | null; lines: string[]; stderr: string }> {
  const p = new PracticeProcess(args, env);
  const code = await p.exited;
  return { code, lines: p.lines, stderr: p.stderr };
}
