// What the browser tests of the customer page and the board do on every screen: save a
// screenshot under test-artifacts/screenshots/ (git-ignored), and run axe-core (WCAG 2.2 A and
// AA rules) on it, expecting no violation. axe's source is evaluated through the debugging
// protocol, so the pages keep their strict CSP.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { ARTIFACTS } from './chromium.ts';

export const SCREENSHOTS = path.join(ARTIFACTS, 'screenshots');
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const WCAG_22_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa'];

/** A phone a customer holds: the narrow end of what the page must look finished on. */
export const SMALL_PHONE = { viewport: { width: 360, height: 740 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };
export const TABLET = { viewport: { width: 1024, height: 768 } };
export const TV_1080 = { viewport: { width: 1920, height: 1080 } };
export const TV_720 = { viewport: { width: 1280, height: 720 } };

export type AxeViolation = { id: string; impact: string | null; help: string; targets: string[] };

export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async (tags) => {
    const axe = (window as unknown as { axe: { run(ctx: Document, o: unknown): Promise<{ violations: any[] }> } }).axe;
    const r = await axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((n: { target: string[] }) => n.target.join(' ')),
    }));
  }, WCAG_22_AA);
}

/**
 * axe needs script, which a page opened without JavaScript does not run. Its DOM (read through
 * the debugging protocol, with <noscript> content parsed as markup) is loaded, without its
 * scripts, into a twin page that runs axe.
 */
async function noScriptViolations(page: Page): Promise<AxeViolation[]> {
  const cdp = await page.context().newCDPSession(page);
  const dom = await cdp.send('Runtime.evaluate', { expression: 'document.documentElement.outerHTML', returnByValue: true });
  await cdp.detach();
  const html = `<!doctype html>${String(dom.result.value)}`
    .replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, '')
    .replace(/<meta http-equiv="refresh"[^>]*>/g, '')
    .replace(/<\/?noscript>/g, '');
  const twin = await page.context().browser()!.newPage({ viewport: page.viewportSize() });
  try {
    await twin.setContent(html);
    return await axeViolations(twin);
  } finally {
    await twin.close();
  }
}

/** Screenshot `name`.png, then axe: the test fails on any violation, naming the screen. */
export async function checkScreen(page: Page, name: string, opts: { js?: boolean } = {}): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const file = path.join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path: file, animations: 'disabled' });
  const violations = opts.js === false ? await noScriptViolations(page) : await axeViolations(page);
  assert.deepEqual(violations, [], `axe (WCAG 2.2 A/AA) on ${name}`);
  return file;
}

export type Box = { x: number; y: number; width: number; height: number };

export async function box(page: Page, selector: string): Promise<Box> {
  const b = await page.locator(selector).first().boundingBox();
  assert.ok(b, `${selector} is on screen`);
  return b;
}

export const intersects = (a: Box, b: Box): boolean =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

export const inside = (inner: Box, outer: Box): boolean =>
  inner.x >= outer.x - 0.5 &&
  inner.y >= outer.y - 0.5 &&
  inner.x + inner.width <= outer.x + outer.width + 0.5 &&
  inner.y + inner.height <= outer.y + outer.height + 0.5;

/** The texts of the buttons and button-like links a user can see. */
export async function visibleActions(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('button, a.button')]
      .filter((el) => (el as HTMLElement).offsetParent !== null && el.getBoundingClientRect().height > 0)
      .map((el) => el.textContent!.trim()),
  );
}
