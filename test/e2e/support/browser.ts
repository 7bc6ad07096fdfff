// Headless Chromium for the end-to-end tests: Debian's package at /usr/bin/chromium driven by
// playwright-core, with the flags this workplace needs (no sandbox as root, nothing reaching out to the
// network on its own) and a fresh profile directory per launch.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Why the suite cannot run here, or null when it can. In CI (.ci/run installs chromium) it must run. */
export function chromiumMissing(): string | null {
  if (existsSync(CHROMIUM_PATH)) return null;
  return `${CHROMIUM_PATH} is missing (install Debian's chromium package: apt-get install -y chromium)`;
}

export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'exchange-e2e-'));
  // A persistent context is how playwright takes a user-data-dir of our choosing: a new empty one.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ARGS,
    viewport: { width: 1440, height: 960 },
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
