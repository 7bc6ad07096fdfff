// The pages still work under their Content-Security-Policy, in a real Chromium: the dashboard builds
// its views and Swagger UI renders every operation, and the browser reports no CSP violation.
import { expect } from 'chai';
import type { RunningServer } from '../../src/server/app.ts';
import { buildWeb } from '../../web/build.ts';
import { startTestServer } from '../support/server.ts';
import { requireTool } from '../support/required-tool.ts';
import { chromiumMissing, launchBrowser, type Browser } from './support/browser.ts';

describe('pages under their Content-Security-Policy (e2e, headless Chromium)', function () {
  this.timeout(30_000);
  let server: RunningServer;
  let browser: Browser;

  before(async function () {
    requireTool(this, chromiumMissing());
    await buildWeb();
    server = await startTestServer();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  for (const [path, ready] of [
    ['/docs', '.opblock'],
    ['/', '#app > *:not(noscript)'],
  ] as const) {
    it(`${path} renders with no CSP violation`, async () => {
      const page = await browser.context.newPage();
      const problems: string[] = [];
      page.on('console', (m) => {
        if (/content security policy/i.test(m.text())) problems.push(m.text());
      });
      page.on('pageerror', (e) => problems.push(e.message));
      // Runs in the page (this project's type check has no DOM library, hence a string).
      await page.addInitScript({
        content: "document.addEventListener('securitypolicyviolation', (e) => { (window.__cspViolations ??= []).push(e.violatedDirective + ' ' + e.blockedURI); });",
      });
      const response = await page.goto(server.url + path);
      expect(response?.headers()['content-security-policy']).to.be.a('string');
      await page.waitForSelector(ready, { timeout: 15_000 });
      if (path === '/docs') expect(await page.locator('.opblock').count()).to.be.greaterThan(10);
      const violations = (await page.evaluate('window.__cspViolations ?? []')) as string[];
      expect(problems).to.deep.equal([]);
      expect(violations).to.deep.equal([]);
      await page.close();
    });
  }
});
