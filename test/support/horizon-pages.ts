// Driving Horizon's pages and magnum-ui's Angular panels in the browser: the login form, table rows and
// their action menus, the schema-form modals (tabs, selects, themable checkboxes) and detail pages.
import type { Download, Locator, Page } from 'playwright-core';

/** Logs in through Horizon's form (Default domain); resolves once Horizon has redirected away from it. */
export async function horizonLogin(page: Page, url: string, user: string, password: string, next = ''): Promise<void> {
  await page.context().clearCookies();
  await page.goto(`${url}/auth/login/${next ? `?next=${encodeURIComponent(next)}` : ''}`);
  await page.fill('#id_username', user);
  await page.fill('#id_password', password);
  await Promise.all([page.waitForURL((u) => !u.pathname.startsWith('/auth/')), page.click('#loginBtn')]);
}

/** Opens a page and waits until it has settled (Horizon's Angular panels load their lists after the page). */
export async function openPage(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.waitForLoadState('networkidle');
}

/** The table row whose name link is `name` (exactly). */
export const rowNamed = (page: Page, name: string): Locator =>
  page.locator('tbody tr', { has: page.getByRole('link', { name, exact: true }) });

/** Runs one of a row's actions: its primary button, or an item of its dropdown menu. */
export async function rowAction(row: Locator, action: string): Promise<void> {
  // A click before the page has settled (its lists and the actions' `allowed` checks) can be lost.
  await row.waitFor();
  await row.page().waitForLoadState('networkidle');
  const primary = row.getByRole('button', { name: action, exact: true });
  if (await primary.count()) {
    await primary.click();
    return;
  }
  await row.locator('.dropdown-toggle').click();
  // By text: an item's accessible name also holds its icon's glyph (CSS content), e.g. the trash can of deletes.
  await row.locator('.dropdown-menu [role="menuitem"]', { hasText: new RegExp(`^\\s*${action}\\s*$`) }).click();
}

/** The open modal dialog. */
export const modal = (page: Page): Locator => page.locator('.modal-dialog').last();

/** Selects the option labelled `label` in the schema-form select `name`, once the option has arrived. */
export async function choose(m: Locator, name: string, label: string, timeout = 15_000): Promise<void> {
  const select = m.locator(`select[name="${name}"]`);
  await select.locator('option', { hasText: label }).first().waitFor({ state: 'attached', timeout }).catch(async (e: Error) => {
    const offered = await select.locator('option').allTextContents().catch(() => []);
    throw new Error(`${name}: no option "${label}" (offered: ${JSON.stringify(offered)}): ${e.message.split('\n')[0]}`);
  });
  await select.selectOption({ label });
}

/** Ticks a themable checkbox (the input is hidden behind its label) and checks the model followed. */
export async function tick(m: Locator, name: string, on = true): Promise<void> {
  const input = m.locator(`input[name="${name}"]`);
  if ((await input.isChecked()) !== on) await m.locator(`label[for="${name}"]`).click();
  if ((await input.isChecked()) !== on) throw new Error(`${name} did not become ${on ? 'checked' : 'unchecked'}`);
}

/** Opens a tab of a workflow modal by its title. */
export const tab = (m: Locator, title: string) => m.locator('.nav-tabs, .wizard-nav, ul').getByRole('link', { name: title, exact: true }).first().click();

/** The text of the <dd> after the <dt> titled `title` on a details page. */
export async function detail(page: Page, title: string, timeout = 10_000): Promise<string> {
  const dd = page.locator('dt', { hasText: new RegExp(`^\\s*${title}\\s*$`) }).first().locator('xpath=following-sibling::dd[1]');
  await dd.waitFor({ timeout });
  return (await dd.innerText()).trim();
}

/** Reloads `url` until the details page's `title` is not `busy`; the value it settled on. */
export async function settleOnPage(page: Page, url: string, title: string, busy: RegExp, timeoutMs = 120_000): Promise<string> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    await openPage(page, url);
    const value = await detail(page, title);
    if (!busy.test(value)) return value;
    if (Date.now() > end) throw new Error(`${title} still ${value} after ${timeoutMs / 1000} s`);
    await page.waitForTimeout(1000);
  }
}

/** Reloads a list page until no row is named `name`. */
export async function goneFromList(page: Page, url: string, name: string, timeoutMs = 120_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    await openPage(page, url);
    await page.locator('table').first().getByText(/Displaying \d+ items?/).first().waitFor();
    if ((await rowNamed(page, name).count()) === 0) return;
    if (Date.now() > end) throw new Error(`${name} is still listed after ${timeoutMs / 1000} s`);
    await page.waitForTimeout(1000);
  }
}

/** Runs `act` and returns the file the page downloads meanwhile. */
export async function downloadOf(page: Page, act: () => Promise<void>, timeout = 15_000): Promise<Download> {
  const [download] = await Promise.all([page.waitForEvent('download', { timeout }), act()]);
  return download;
}
