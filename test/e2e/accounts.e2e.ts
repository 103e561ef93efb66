// Invitations and leaving, in Chromium at a phone's width (390 px): an invitee opens the emailed
// link, chooses a password and lands on the board signed in; an owner deletes the account from
// the account screen's delete zone, is signed out, signs in to the restore screen and restores it.
// Each screen is checked by axe-core (WCAG 2.2 A and AA) and for sideways scrolling.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { asSession, signInOk } from '../helpers/session.ts';
import { startSmtpServer, type LocalSmtp } from '../helpers/smtp-server.ts';
import { axeViolations, shot } from '../helpers/staff-page.ts';

const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

let smtp: LocalSmtp;
let t: TestApp;
let browser: Browser;

before(async () => {
  smtp = await startSmtpServer();
  t = await startTestApp({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'Readybell <noreply@pickup.example>' } });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await t?.close();
  await smtp?.close();
});

async function fits(page: Page, state: string): Promise<void> {
  const v = await axeViolations(page);
  assert.deepEqual(
    v.map((x) => `${x.id}: ${x.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    [],
    `${state}: axe found violations`,
  );
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  const wide = await page.evaluate(() =>
    [...document.querySelectorAll('body *')]
      .filter((el) => el.getBoundingClientRect().right > 391 && el.closest('nav') === null && el.closest('.notices') === null)
      .map(
        (el) =>
          `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className ? `.${String(el.className).replace(/ /g, '.')}` : ''}`,
      )
      .slice(0, 8),
  );
  assert.ok(width <= 390, `${state}: the page is ${width} px wide at 390 (${wide.join(', ')})`);
}

async function phonePage(): Promise<Page> {
  const ctx = await browser.newContext({ locale: 'en-GB', timezoneId: 'UTC', ...PHONE });
  const page = await ctx.newPage();
  page.on('dialog', (d) => void d.dismiss());
  return page;
}

test('an invitee opens the emailed link, chooses a password and is signed in on the board', async () => {
  const owner = asSession(t, await signInOk(t, t.tenant.ownerEmail, t.tenant.ownerPassword));
  const email = 'new-hire@example.test';
  assert.equal((await owner('POST', '/v1/invitations', { body: { email, role: 'staff' } })).status, 201);
  await t.app.runner.runOnce();
  await smtp.waitFor(1);
  const link = smtp.linkIn(smtp.only(email), 'http://localhost:3000/staff/invitation#');
  const page = await phonePage();
  await page.goto(`${t.url}${new URL(link).pathname}${new URL(link).hash}`);
  await page.getByRole('heading', { level: 1, name: /Accept your invitation/ }).waitFor();
  await fits(page, 'accept an invitation');
  await shot(page, 'accept-invitation-phone');
  await page.getByLabel(/^Password/).fill('short');
  await page.getByRole('button', { name: 'Accept and sign in' }).click();
  // The browser's own check holds a short password back; the server's rule is the same.
  assert.equal(await page.locator('#accept-password').evaluate((el) => (el as HTMLInputElement).validity.valid), false);
  await page.getByLabel(/^Password/).fill('a passphrase of my own');
  await page.getByRole('button', { name: 'Accept and sign in' }).click();
  await page.waitForSelector('.board');
  assert.equal(new URL(page.url()).pathname, '/staff/', 'the link is no longer in the address');
  const session = await page.evaluate(async () => (await fetch('/v1/session')).json());
  assert.equal(session.user.email, email);
  // The link works once: opened again, it says so.
  const again = await phonePage();
  await again.goto(`${t.url}${new URL(link).pathname}${new URL(link).hash}`);
  await again.getByLabel(/^Password/).fill('another passphrase');
  await again.getByRole('button', { name: 'Accept and sign in' }).click();
  await again
    .getByRole('alert')
    .filter({ hasText: /expired, was revoked or was already used/ })
    .waitFor();
  await page.context().close();
  await again.context().close();
});

test('an owner deletes the account from the delete zone, is signed out, and restores it on signing in', async () => {
  const tenant = await t.newTenant();
  const account = (await asSession(t, await signInOk(t, tenant.ownerEmail, tenant.ownerPassword))('GET', '/v1/account')).body.name;
  const page = await phonePage();
  await page.goto(`${t.url}/staff#/account`);
  await page.fill('#email', tenant.ownerEmail);
  await page.fill('#password', tenant.ownerPassword);
  await page.click('form button[type=submit]');
  await page.getByRole('heading', { level: 2, name: 'Leave readybell' }).waitFor();
  await shot(page, 'account-delete-zone-phone');
  await fits(page, 'the account screen with its delete zone');
  assert.equal(await page.getByRole('button', { name: 'Delete the account' }).isDisabled(), true, 'disabled until the name is typed');
  await page.getByLabel(/Type the account’s name/).fill(account);
  await page.getByRole('button', { name: 'Delete the account' }).click();
  await page.locator('dialog[open]').getByRole('button', { name: 'Delete the account' }).click();
  await page.locator('#email').waitFor();
  assert.equal((await t.request('GET', '/v1/tickets', { key: tenant.liveKey })).status, 401, 'the keys stopped at once');
  await page.fill('#password', tenant.ownerPassword);
  await page.click('form button[type=submit]');
  await page.getByRole('heading', { level: 1, name: 'This account is being deleted' }).waitFor();
  await fits(page, 'the restore screen');
  await shot(page, 'account-deleted-phone');
  await page.getByRole('button', { name: 'Restore the account' }).click();
  // Back where the owner was: the account screen (the address still says #/account).
  await page.getByRole('heading', { level: 1, name: 'Account' }).waitFor();
  assert.equal((await t.request('GET', '/v1/tickets', { key: tenant.liveKey })).status, 200, 'the keys work again');
  await page.context().close();
});
