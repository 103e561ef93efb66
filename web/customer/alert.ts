// "Alert me": the tap unlocks the sound, holds the screen awake, and asks for Web Push where it is
// offered. Safari on an iPhone or iPad gives Web Push only to a page opened from the Home Screen:
// in a tab the button explains the two taps instead of asking; the sound and the wake lock this
// tap obtained keep the open page ringing meanwhile.
import { byId } from '../shared/dom.ts';
import { unlockSound } from './sound.ts';

let wakeLock: WakeLockSentinel | null = null;

async function lockScreen(): Promise<void> {
  try {
    if (navigator.wakeLock) wakeLock = await navigator.wakeLock.request('screen');
  } catch {
    wakeLock = null;
  }
}

const ios = (): boolean =>
  /iP(hone|ad|od)/.test(navigator.userAgent) || (navigator.platform === 'MacIntel' && navigator.maxTouchPoints > 1);
const standalone = (): boolean =>
  navigator.standalone === true || (!!window.matchMedia && matchMedia('(display-mode: standalone)').matches);

function explainHomeScreen(): void {
  byId('ios').hidden = false;
  byId('ios-h').focus({ preventScroll: true });
  byId('ios').scrollIntoView({ block: 'nearest' });
}

async function alertMe(): Promise<void> {
  unlockSound();
  await lockScreen();
  byId('alert').hidden = true;
  if (ios() && !standalone()) {
    explainHomeScreen();
    return;
  }
  byId('alert-on').hidden = false;
  const push = window.readybellPush;
  if (push?.supported?.()) push.subscribe().catch(() => {});
}

export function offerAlerts(open: boolean): void {
  // A released wake lock is taken again when the page is shown again.
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible' && wakeLock !== null) lockScreen();
  });
  byId('alert').addEventListener('click', alertMe);
  byId('alertbox').hidden = !open;
  byId('alert').hidden = false;
}
