// Driving the staff page in Chromium: sign in, find a ticket's card, act on it, and keep
// screenshots and printed slips as artifacts under test-artifacts/.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { TestApp } from './app.ts';
import { ARTIFACTS } from './chromium.ts';

/** A 10-inch tablet in landscape, the counter's usual device. */
export const TABLET = { viewport: { width: 1280, height: 800 } };

export type StaffPage = { ctx: BrowserContext; page: Page; errors: string[] };

export async function openStaffPage(
  browser: Browser,
  t: TestApp,
  who: { email: string; password: string },
  options: Parameters<Browser['newContext']>[0] = TABLET,
  /** Runs before the page loads, e.g. installing Playwright's clock so its timers are the test's. */
  beforeLoad?: (page: Page) => Promise<void>,
): Promise<StaffPage> {
  const ctx = await browser.newContext({ locale: 'en-GB', timezoneId: 'UTC', ...options });
  const page = await ctx.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  // The page has its own dialogs; a browser dialog (alert, confirm) would be a regression.
  page.on('dialog', (d) => {
    errors.push(`browser dialog: ${d.message()}`);
    void d.dismiss();
  });
  await beforeLoad?.(page);
  await page.goto(`${t.url}/staff`);
  await signInOnPage(page, who);
  return { ctx, page, errors };
}

/** The tenant owner's page on a tablet, on Playwright's clock (installed before it loads), once its stream is live. */
export async function openOwnerPageOnClock(
  browser: Browser,
  t: TestApp,
): Promise<{ page: Page; errors: string[]; close: () => Promise<void> }> {
  const { ctx, page, errors } = await openStaffPage(
    browser,
    t,
    { email: t.tenant.ownerEmail, password: t.tenant.ownerPassword },
    TABLET,
    (p) => p.clock.install(),
  );
  await page.waitForSelector('.connection-live');
  return { page, errors, close: () => ctx.close() };
}

export async function signInOnPage(page: Page, who: { email: string; password: string }): Promise<void> {
  await page.fill('#email', who.email);
  await page.fill('#password', who.password);
  await page.click('form button[type=submit]');
  await page.waitForSelector('.board, .admin');
}

export const card = (page: Page, number: string) => page.locator(`li.ticket[data-number="${number}"]`);

export async function shot(page: Page, name: string, fullPage = true): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `staff-${name}.png`), fullPage });
}

/** Creates a ticket through the page's form; the slip opens; returns the new number after closing it. */
export async function createOnPage(page: Page, ref: string): Promise<string> {
  await page.fill('#new-ref', ref);
  await page.click('button:has-text("Create and print")');
  const number = (await page.locator('dialog[open] .slip-number').textContent())!.trim();
  await page.click('dialog[open] button:has-text("Close")');
  await card(page, number).waitFor();
  return number;
}

/** Prints the open slip to PDF as the browser would, and turns it into a PNG for a look. */
export async function printSlip(page: Page, name: string): Promise<{ widthPt: number; heightPt: number; pages: number; png: string }> {
  const pdf = path.join(ARTIFACTS, `staff-${name}.pdf`);
  await page.emulateMedia({ media: 'print' });
  await page.pdf({ path: pdf, preferCSSPageSize: true, printBackground: true });
  await page.emulateMedia({ media: 'screen' });
  const info = execFileSync('pdfinfo', [pdf], { encoding: 'utf8' });
  const size = /Page size:\s+([\d.]+) x ([\d.]+) pts/.exec(info)!;
  const pages = Number(/Pages:\s+(\d+)/.exec(info)![1]);
  const prefix = path.join(ARTIFACTS, `staff-${name}`);
  execFileSync('pdftoppm', ['-png', '-r', '200', '-singlefile', pdf, prefix]);
  return { widthPt: Number(size[1]), heightPt: Number(size[2]), pages, png: `${prefix}.png` };
}

/** Where the screens of the staff page are kept for people to look at (git-ignored). */
export const SCREENSHOTS = path.join(ARTIFACTS, 'screenshots');

/** The sizes the staff page is judged at: a 10-inch tablet in landscape and a small phone. */
export const SIZES = {
  tablet: { viewport: { width: 1024, height: 768 } },
  phone: { viewport: { width: 360, height: 740 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
} as const;

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const WCAG_22_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa'];

export type AxeViolation = { id: string; impact: string | null; help: string; nodes: Array<{ target: string[]; failureSummary?: string }> };

/**
 * Runs axe-core (WCAG 2.2 A and AA rules, or the rules named in `rules`) on the page as it is now;
 * returns its violations.
 */
export async function axeViolations(page: Page, rules?: string[]): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const only = rules === undefined ? { type: 'tag', values: WCAG_22_AA } : { type: 'rule', values: rules };
  return page.evaluate(async (runOnly) => {
    const axe = (window as unknown as { axe: { run(ctx: Document, o: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
    const r = await axe.run(document, { runOnly, resultTypes: ['violations'] });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })),
    }));
  }, only);
}

/** Saves the screen as `test-artifacts/screenshots/staff-<name>.png` and returns axe's violations. */
export async function keepScreen(page: Page, name: string, fullPage = true): Promise<{ file: string; violations: AxeViolation[] }> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const file = path.join(SCREENSHOTS, `staff-${name}.png`);
  await page.screenshot({ path: file, fullPage });
  return { file, violations: await axeViolations(page) };
}
