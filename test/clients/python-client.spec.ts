// The Python client (clients/python) against a real server this test starts: its unittest suite runs
// with Debian's /usr/bin/python3 (which sees python3-websockets; .ci/run installs both when missing,
// and a machine without them skips the suite with the reason: test/support/required-tool.ts).
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { RunningServer } from '../../src/server/app.ts';
import { DEBIAN_PYTHON as PYTHON, pythonWebsocketsMissing, requireTool } from '../support/required-tool.ts';
import { ADMIN_TOKEN, startTestServer } from '../support/server.ts';

const CLIENT_DIR = fileURLToPath(new URL('../../clients/python/', import.meta.url));

describe('Python client against the server', function () {
  this.timeout(180_000);
  let server: RunningServer;

  before(async function () {
    requireTool(this, pythonWebsocketsMissing());
    server = await startTestServer({ PER_USER_REQUESTS_PER_SECOND: '1000000', WS_SNAPSHOTS_PER_SECOND: '1000' });
  });
  after(async () => {
    await server?.close();
  });

  it('passes its unittest suite: synced books after a random session with two kills, argument checks, errors, fees and scoped keys', async () => {
    const child = spawn(PYTHON, ['-m', 'unittest', 'discover', '-s', 'tests', '-t', '.', '-v'], {
      cwd: CLIENT_DIR,
      env: { ...process.env, EXCHANGE_URL: server.url, EXCHANGE_ADMIN_TOKEN: ADMIN_TOKEN, PYTHONDONTWRITEBYTECODE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code, output).to.equal(0);
    expect(output).to.match(/Ran 4 tests/);
    if (process.env['SHOW_PYTHON'] !== undefined) console.log(output);
  });
});
