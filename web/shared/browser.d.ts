// What older or vendor browsers offer that TypeScript's DOM types leave out, and the page-wide
// object web/push/push.js defines; the pages' scripts test for each before using it.

interface Window {
  /** Safari before 14.1. */
  webkitAudioContext?: typeof AudioContext;
  /** web/push/push.js, loaded before the customer page's script where Web Push is offered. */
  readybellPush?: { supported(): boolean; subscribe(): Promise<unknown> };
}

interface Navigator {
  /** Safari on iOS: the page was opened from the Home Screen. */
  standalone?: boolean;
}
