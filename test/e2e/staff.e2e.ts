// The staff page in a real browser (Debian's Chromium): sign-in, the live board, the customer's
// page ringing while staff mark the ticket ready, printing the slip, the bad-input cases, keys.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { pathOf } from '../helpers/live.ts';
import { launchChromium, PHONE } from '../helpers/chromium.ts';
import { card, createOnPage, openStaffPage, printSlip, shot, signInOnPage, TABLET } from '../helpers/staff-page.ts';
import { asSession, signInOk } from '../helpers/session.ts';
import { startSmtpServer, type LocalSmtp } from '../helpers/smtp-server.ts';

const clock = new FakeClock(Date.now());
let t: TestApp;
let smtp: LocalSmtp;
let browser: Browser;
let owner: { email: string; password: string };
before(async () => {
  // Invitations are mailed: a local SMTP server keeps them for the invitee to open.
  smtp = await startSmtpServer();
  // Every webhook host resolves to one public address: the admin screens add an endpoint.
  t = await startTestApp({
    clock,
    env: { SMTP_URL: smtp.url, MAIL_FROM: 'Readybell <noreply@pickup.example>' },
    webhookLookup: async () => [{ address: '93.184.215.14', family: 4 }],
  });
  owner = { email: t.tenant.ownerEmail, password: t.tenant.ownerPassword };
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await t?.close();
  await smtp?.close();
});

const api = (method: string, path: string, body?: unknown) => t.request(method, path, { key: t.tenant.liveKey, body });
const MM = 72 / 25.4;

test('a wrong password gets one generic message; the right one opens the board', async () => {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await page.goto(`${t.url}/staff`);
  await page.fill('#email', owner.email);
  await page.fill('#password', 'not my password');
  await page.click('form button[type=submit]');
  assert.equal(await page.textContent('#sign-in-error'), 'The email or password is wrong.');
  assert.equal(await page.inputValue('#password'), '', 'the wrong password is cleared');
  await shot(page, 'sign-in-error', false);
  await signInOnPage(page, owner);
  assert.match(await page.title(), /^Board · Branch/);
  const cookies = await ctx.cookies();
  const session = cookies.find((c) => c.name === 'readybell_session')!;
  assert.equal(session.httpOnly, true);
  assert.equal(session.sameSite, 'Lax');
  await ctx.close();
});

test('creating a ticket opens its slip, which prints on 80 mm and 58 mm receipt paper', async () => {
  const { ctx, page, errors } = await openStaffPage(browser, t, owner);
  await page.fill('#new-ref', 'order-77');
  await page.click('button:has-text("Create and print")');
  const number = (await page.locator('dialog[open] .slip-number').textContent())!;
  assert.match(number, /^A-\d+$/);
  await page.waitForFunction(
    () => ((document.querySelector('dialog[open] img.slip-qr') as HTMLImageElement | null)?.naturalWidth ?? 0) > 0,
  );
  assert.match((await page.locator('dialog[open] .slip-ref').textContent())!, /order-77/);
  await shot(page, 'slip-dialog', false);

  const wide = await printSlip(page, 'slip-80mm');
  assert.equal(wide.pages, 1, 'the slip fits on one receipt');
  assert.ok(Math.abs(wide.widthPt - 80 * MM) < 1, `80 mm wide, got ${wide.widthPt} pt`);
  assert.ok(readFileSync(wide.png).length > 1000);
  await page.check('input[name=paper][value="58"]');
  const narrow = await printSlip(page, 'slip-58mm');
  assert.equal(narrow.pages, 1);
  assert.ok(Math.abs(narrow.widthPt - 58 * MM) < 1, `58 mm wide, got ${narrow.widthPt} pt`);

  await page.click('dialog[open] button:has-text("Close")');
  assert.equal(await page.locator('.column-waiting').locator(`li[data-number="${number}"] .ref`).textContent(), '#order-77 · ');
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('a POS ticket appears live; marking it ready rings the open customer page and the board says so', async () => {
  const { ctx, page, errors } = await openStaffPage(browser, t, owner);
  await page.waitForSelector('.connection-live');
  const tk = (await api('POST', '/v1/tickets', { external_ref: 'pos-55' })).body;
  await card(page, tk.display_number).waitFor();
  await page.waitForFunction(
    (n) => [...document.querySelectorAll('[aria-live="polite"]')].some((r) => r.textContent === `New ticket ${n}`),
    tk.display_number,
  );

  const customer = await browser.newContext({ ...PHONE, locale: 'en-GB' });
  const phone = await customer.newPage();
  await phone.goto(t.url + pathOf(tk.url));
  await phone.waitForSelector('html[data-live="on"]');
  await card(page, tk.display_number).locator('.chip-viewed').waitFor();

  await page.click(`button[aria-label="Mark ${tk.display_number} ready"]`);
  const result = card(page, tk.display_number).locator('.ring-result');
  await result.waitFor();
  assert.match((await result.textContent())!, new RegExp(`Rang ${tk.display_number} via the open ticket page`));
  await phone.waitForSelector('html[data-ringing][data-state="ready"]');
  assert.equal(await page.locator('.column-ready').locator(`li[data-number="${tk.display_number}"]`).count(), 1);
  await shot(page, 'board');
  await phone.screenshot({ path: 'test-artifacts/staff-customer-rung.png' });

  await phone.click('text=On my way');
  await card(page, tk.display_number).locator('.chip-ack').waitFor();
  assert.deepEqual(errors, []);
  await customer.close();
  await ctx.close();
});

test('acting on a ticket another device just closed says so and refreshes the board', async () => {
  const tk = (await api('POST', '/v1/tickets', { external_ref: 'race' })).body;
  const ctx = await browser.newContext();
  // This tablet gets no live updates (its stream is cut), so the other device is always quicker.
  await ctx.route('**/v1/stream', (route) => route.abort());
  const page = await ctx.newPage();
  await page.goto(`${t.url}/staff`);
  await signInOnPage(page, owner);
  await card(page, tk.display_number).waitFor();
  assert.equal((await api('POST', `/v1/tickets/${tk.id}/collect`)).status, 200);
  await page.click(`button[aria-label="Cancel ${tk.display_number}"]`);
  await page.waitForSelector(`.notice-warning:has-text("${tk.display_number} is already collected")`);
  await page.locator('.column-closed').locator(`li[data-number="${tk.display_number}"]`).waitFor();
  assert.equal(await page.locator('.column-waiting').locator(`li[data-number="${tk.display_number}"]`).count(), 0);
  assert.equal((await api('GET', `/v1/tickets/${tk.id}`)).body.status, 'collected', 'nothing was undone');
  await ctx.close();
});

test('an expired session returns to sign-in and keeps the half-filled form', async () => {
  const { ctx, page } = await openStaffPage(browser, t, owner);
  await page.fill('#new-ref', 'half-typed');
  clock.advance(13 * 3600_000);
  await page.click('button:has-text("Create and print")');
  await page.waitForSelector('text=Your session ended');
  await shot(page, 'session-expired', false);
  await signInOnPage(page, owner);
  assert.equal(await page.inputValue('#new-ref'), 'half-typed');
  await page.click('button:has-text("Create and print")');
  await page.waitForSelector('dialog[open] .slip-ref:has-text("half-typed")');
  await ctx.close();
});

test('keyboard: N, type, Enter creates; arrows select; R marks ready; the shortcuts are listed', async () => {
  const { ctx, page } = await openStaffPage(browser, t, owner);
  clock.advance(1000);
  await page.keyboard.press('n');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'new-ref');
  await page.keyboard.type('kbd-1');
  await page.keyboard.press('Enter');
  const number = (await page.locator('dialog[open] .slip-number').textContent())!;
  await page.keyboard.press('Escape');
  await page.waitForSelector('dialog[open]', { state: 'detached' });
  await page.locator('#new-ref').blur();
  const waiting = await page.locator('.column-waiting li.ticket').count();
  for (let i = 0; i < waiting; i++) await page.keyboard.press('ArrowDown');
  assert.equal(await page.locator('li.ticket.selected').getAttribute('data-number'), number, 'the newest waiting ticket is last');
  await page.keyboard.press('r');
  await page.locator('.column-ready').locator(`li[data-number="${number}"]`).waitFor();
  await page.keyboard.press('?');
  assert.equal(await page.locator('details.shortcuts').getAttribute('open'), '');
  assert.match((await page.locator('details.shortcuts').textContent())!, /Ready \(or ring again\)/);
  await ctx.close();
});

test('an owner creates an API key (shown once), it works, and revoking it stops it', async () => {
  const { ctx, page, errors } = await openStaffPage(browser, t, owner);
  await page.click('nav >> text=API keys');
  await page.selectOption('form[aria-label="Create an API key"] select', 'live');
  await page.fill('input[placeholder="e.g. Till 1"]', 'Till 9');
  await page.click('button:has-text("Create key")');
  const key = (await page.locator('[data-testid=new-key]').textContent())!;
  assert.match(key, /^rk_live_/);
  await shot(page, 'admin-keys-created');
  assert.equal((await t.request('GET', '/v1/tickets', { key })).status, 200);
  await page.click('button:has-text("I have stored it")');
  await page.click(`button[aria-label="Revoke rk_live_…${key.slice(-4)}"]`);
  // The page's own dialog asks first (no browser confirm()).
  await page.click('dialog[open] button:has-text("Revoke")');
  await page.waitForSelector(`text=Revoked rk_live_…${key.slice(-4)}`);
  assert.equal((await t.request('GET', '/v1/tickets', { key })).status, 401);
  assert.deepEqual(errors, []);
  await ctx.close();
});

test("the ladder editor shows WhatsApp as a step's paid channel once the branch turns it on (decision 0091)", async () => {
  const ladder = [{ after_seconds: 60, channels: ['push'], sms: 'never', call_out: true }];
  assert.equal((await api('PATCH', '/v1/branch', { escalation_ladder: ladder })).status, 200);
  const { ctx, page, errors } = await openStaffPage(browser, t, owner);
  try {
    await page.goto(`${t.url}/staff#/admin/settings`);
    await page.waitForSelector('#s-lsms-0');
    const paidLabel = () => page.locator('label[for="s-lsms-0"]').textContent();
    assert.equal(await paidLabel(), 'SMS', 'off by default: the step names SMS only');
    await page.check('label:has-text("WhatsApp (business plan") input');
    assert.equal(await paidLabel(), 'SMS / WhatsApp');
    await page.uncheck('label:has-text("SMS fallback") input');
    assert.equal(await paidLabel(), 'WhatsApp');
    await page.click('button:has-text("Save settings")');
    await page.waitForSelector('text=Settings saved.');
    const branch = (await api('GET', '/v1/branch')).body;
    assert.deepEqual([branch.whatsapp_enabled, branch.sms_enabled], [true, false]);
    await page.reload();
    await page.waitForSelector('#s-lsms-0');
    assert.equal(await paidLabel(), 'WhatsApp', 'kept after a reload');
    await shot(page, 'admin-ladder-whatsapp');
    assert.deepEqual(errors, []);
  } finally {
    await ctx.close();
    await api('PATCH', '/v1/branch', { escalation_ladder: null, sms_enabled: true, whatsapp_enabled: false });
  }
});

test('the other admin screens work and are kept as screenshots', async () => {
  const { ctx, page, errors } = await openStaffPage(browser, t, owner);
  await page.goto(`${t.url}/staff#/admin/webhooks`);
  await page.fill('#wh-url', 'https://pos.example.com/readybell');
  await page.click('button:has-text("Add endpoint")');
  assert.match((await page.locator('[data-testid=webhook-secret]').textContent())!, /^whsec_/);
  await page.click('button:has-text("Secret, test and deliveries")');
  await page.click('button:has-text("Send test event")');
  await page.waitForSelector('td code:has-text("ping")');
  await shot(page, 'admin-webhooks');

  await page.goto(`${t.url}/staff#/admin/displays`);
  await page.click('button:has-text("Create board")');
  await page.waitForSelector('dialog[open] img.qr');
  assert.match((await page.locator('dialog[open] .board-link').textContent())!, /\/board\//);
  await shot(page, 'admin-display-qr', false);
  await page.click('dialog[open] button:has-text("Close")');

  await page.goto(`${t.url}/staff#/announcements`);
  await page.fill('#ann-message', 'The kitchen is running 10 minutes late');
  await page.click('button:has-text("Show announcement")');
  await page.waitForSelector('.announcement:has-text("10 minutes late")');
  await shot(page, 'admin-announcements');

  // Inviting mails a link (decision 0082): the screen says so and lists the invitation as open until it is used.
  await page.goto(`${t.url}/staff#/admin/users`);
  await page.fill('#invite-email', 'new.staff@example.test');
  await page.click('button:has-text("Invite")');
  await page.waitForSelector('text=Invitation sent to new.staff@example.test');
  const invited = page.locator('tr:has-text("new.staff@example.test")');
  assert.match((await invited.textContent())!, /Valid until/);
  assert.equal(await page.inputValue('#invite-email'), '', 'the form is cleared for the next invitation');
  await shot(page, 'admin-users');
  for (const [hash, name] of [
    ['#/admin/queues', 'queues'],
    ['#/admin/settings', 'settings'],
    ['#/account', 'account'],
  ] as const) {
    await page.goto(`${t.url}/staff${hash}`);
    await page.waitForSelector('.admin h1');
    await shot(page, `admin-${name}`);
  }
  await page.goto(`${t.url}/staff#/admin/settings`);
  await page.fill('#s-exp', '6');
  await page.click('button:has-text("Save settings")');
  await page.waitForSelector('text=Settings saved.');
  assert.equal((await api('GET', '/v1/branch')).body.expiry_hours, 6);
  // The escalation ladder: on (from the reminders: 120 s, 240 s, every channel), a step added, two steps' channels changed.
  assert.ok(await page.isVisible('#s-rd'), 'without a ladder, the reminder delay is set here');
  await page.check('text=Use an escalation ladder');
  // With one, the reminders are its steps: the two reminder fields give way to a line saying so.
  await page.waitForSelector('text=Reminders follow the escalation ladder below.');
  assert.equal(await page.$('#s-rd'), null);
  assert.equal(await page.$('#s-rc'), null);
  await page.click('button:has-text("Add a step")');
  await page.fill('#s-ls-0', '60');
  const step = (i: number, label: string) => page.locator(`#s-ls-${i}`).locator('xpath=..').locator(`label:has-text("${label}") input`);
  await step(2, 'Push').uncheck();
  await step(1, 'Wallet pass').uncheck();
  await page.fill('#s-ls-1', '60');
  await page.click('button:has-text("Save settings")');
  await page.waitForSelector('#s-ladder-error');
  await page.fill('#s-ls-1', '120');
  await page.click('button:has-text("Save settings")');
  await page.waitForSelector('text=Settings saved.');
  const ladder = async () =>
    (await api('GET', '/v1/branch')).body.escalation_ladder.map((s: any) => [s.after_seconds, s.channels, s.sms, s.call_out]);
  assert.deepEqual(await ladder(), [
    [60, ['push', 'wallet', 'page'], 'never', true],
    [120, ['push', 'page'], 'never', true],
    [300, ['wallet', 'page'], 'never', true],
  ]);
  // The Wallet choice is kept: after a reload the second step still has it off; turned on again, it is saved and kept.
  const wallets = () => Promise.all([0, 1, 2].map((i) => step(i, 'Wallet pass').isChecked()));
  await page.reload();
  await page.waitForSelector('#s-ls-2');
  assert.deepEqual(await wallets(), [true, false, true]);
  await step(1, 'Wallet pass').check();
  await page.click('button:has-text("Save settings")');
  await page.waitForSelector('text=Settings saved.');
  await page.reload();
  await page.waitForSelector('#s-ls-2');
  assert.deepEqual(await wallets(), [true, true, true]);
  await shot(page, 'admin-ladder');
  assert.deepEqual((await ladder())[1], [120, ['push', 'wallet', 'page'], 'never', true], 'the API lists it in its place');
  assert.deepEqual(errors, []);
  await ctx.close();

  // The invitee opens the mailed link, chooses a password and sees only what the staff role allows.
  await t.app.runner.runOnce();
  const [mail] = await smtp.waitFor(1);
  const link = new URL(smtp.linkIn(mail!, 'http://localhost:3000/staff/invitation#'));
  const staff = await browser.newContext({ locale: 'en-GB', timezoneId: 'UTC', ...TABLET });
  const invitee = await staff.newPage();
  await invitee.goto(`${t.url}${link.pathname}${link.hash}`);
  await invitee.getByLabel(/^Password/).fill('a passphrase of my own');
  await invitee.getByRole('button', { name: 'Accept and sign in' }).click();
  await invitee.waitForSelector('.board');
  const nav = await invitee.locator('nav a').allTextContents();
  assert.deepEqual(nav, ['Board', 'Announcements'], 'a staff user sees only what the role allows (Account is in the account menu)');
  await staff.close();
  // Accepted, the invitation is no longer open: the owner's users screen lists the new user instead.
  const asOwner = asSession(t, await signInOk(t, owner.email, owner.password));
  const users = (await asOwner('GET', '/v1/users')).body.data.map((u: any) => [u.email, u.role]);
  assert.deepEqual(
    users.filter(([email]: string[]) => email === 'new.staff@example.test'),
    [['new.staff@example.test', 'staff']],
  );
  assert.deepEqual((await asOwner('GET', '/v1/invitations')).body.data, [], 'no invitation is left open');
});

test('the board works on a phone', async () => {
  const { ctx, page } = await openStaffPage(browser, t, owner, PHONE);
  await createOnPage(page, 'phone-1');
  await shot(page, 'board-phone');
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 390, `no sideways scrolling on a phone (page is ${width} px wide)`);
  await ctx.close();
});
