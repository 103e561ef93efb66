// Whether this browser shows an account's first-run checklist: from the verification that created
// the account's first session here until the owner hides it. The first test key lives in memory
// only, shown once: a reload forgets it, as the server never shows it again.
let firstKey: string | null = null;

const storeKey = (accountId: string): string => `readybell:first-run:${accountId}`;

export function startFirstRun(accountId: string, testKey: string | null): void {
  firstKey = testKey;
  if (testKey === null) return;
  try {
    localStorage.setItem(storeKey(accountId), '1');
  } catch {
    // not kept: the checklist shows this time only
  }
}

export function firstRunWanted(accountId: string): boolean {
  try {
    return localStorage.getItem(storeKey(accountId)) === '1' || firstKey !== null;
  } catch {
    return firstKey !== null;
  }
}

export function endFirstRun(accountId: string): void {
  firstKey = null;
  try {
    localStorage.removeItem(storeKey(accountId));
  } catch {
    // nothing kept
  }
}

/** The first test key, until the checklist is hidden or the page reloaded. */
export const firstTestKey = (): string | null => firstKey;
