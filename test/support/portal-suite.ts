// A browser test file's portal stack and Chromium, started before its tests and closed after them (the hooks
// every test/portal file had written out again).
import { after, before } from 'node:test';
import { launch, type Browser } from './browser.js';
import { portalStack, type PortalStack } from './portal.js';

/** Registers the file's hooks; `use` gets the stack and the browser once both are up. */
export function portalSuite(use: (s: PortalStack, browser: Browser) => void, opts: { timeScale?: number } = {}): void {
  let s: PortalStack | undefined;
  let browser: Browser | undefined;
  before(async () => {
    s = await portalStack(opts);
    browser = await launch();
    use(s, browser);
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });
}
