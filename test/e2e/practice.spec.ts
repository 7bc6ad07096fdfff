// The dashboard of a practice exchange in headless Chromium: the simulated clock, the speed and the
// progress above every view, steering with the operator's token, and the report once the recording has
// played to its end; every view with no error on the console (CSP included). An ordinary exchange's
// page shows none of it (dashboard.spec.ts and demo.spec.ts hold those views to no console error).
import { expect } from 'chai';
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import type { Practice } from '../../practice/practice.ts';
import { buildWeb } from '../../web/build.ts';
import { requireTool } from '../support/required-tool.ts';
import { practise } from '../practice/support/practice.ts';
import { Recorder, writeLog } from '../practice/support/recordings.ts';
import { chromiumMissing, launchBrowser, type Browser } from './support/browser.ts';

const ARTIFACTS = new URL('../../test-artifacts/', import.meta.url).pathname;

describe('dashboard of a practice exchange (e2e, headless Chromium)', function () {
  this.timeout(60_000);
  let browser: Browser;
  let practice: Practice;
  let page: Page;
  const problems: string[] = [];

  before(async function () {
    requireTool(this, chromiumMissing());
    mkdirSync(ARTIFACTS, { recursive: true });
    await buildWeb();
    // Two traders making a market for about 30 recorded seconds.
    const r = new Recorder(500);
    const alice = r.trader('alice');
    const bob = r.trader('bob');
    r.market('BTC-USD');
    for (let i = 0; i < 30; i++) {
      r.order(alice, 'SELL', 101 + (i % 3), 2);
      r.order(bob, 'BUY', 103, 1);
    }
    practice = await practise(writeLog(r.events), { speed: 1, paused: true });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await practice?.close();
  });

  it('shows the simulated clock, speed and progress; steers; shows the report when finished', async () => {
    page = await browser.context.newPage();
    page.on('pageerror', (err) => problems.push(err.message));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    await page.goto(`${practice.ready.url}/`);
    await page.evaluate((token) => localStorage.setItem('exchange.adminToken', token), practice.ready.admin_token);
    await page.goto(`${practice.ready.url}/#/spectator`);
    const panel = page.getByTestId('practice');
    await panel.waitFor();
    expect(await page.getByTestId('practice-state').textContent()).to.equal('paused');
    expect(await page.getByTestId('practice-clock').getAttribute('datetime')).to.equal(practice.ready.recording.from);
    expect(await page.getByTestId('practice-progress').getAttribute('data-total')).to.equal('63');
    expect(await page.getByTestId('practice-speed').textContent()).to.equal('speed ×1');
    await page.getByTestId('practice-resume').click();
    await page.getByTestId('practice-state').and(page.locator(':text("running")')).waitFor();
    await page.locator('[data-testid=practice-progress]:not([data-replayed="0"]):not([data-replayed="1"]):not([data-replayed="2"])').waitFor();
    await page.getByTestId('practice-speed-select').selectOption('max');
    await page.getByTestId('practice-report').waitFor();
    expect(await page.getByTestId('practice-state').textContent()).to.equal('finished');
    expect(await page.getByTestId('practice-report').getAttribute('data-faithful')).to.equal('true');
    expect(await page.getByTestId('practice-clock').getAttribute('datetime')).to.equal(practice.ready.recording.until);
    expect(await page.locator('[data-testid=practice-report] tr[data-trader]').count()).to.equal(3);
    for (const view of ['trader', 'operator', 'spectator']) {
      await page.goto(`${practice.ready.url}/#/${view}`);
      await page.getByTestId('practice-report').waitFor();
    }
    // The tape reads as in the recording: the trades at their simulated times.
    await page.getByTestId('trade').first().waitFor();
    await page.screenshot({ path: `${ARTIFACTS}practice.png` });
    await page.close();
    expect(problems).to.deep.equal([]);
  });
});
