// The connector screens this page can draw, by connector name. Which of them an owner sees, and at
// which address, comes from the server's list of installed connectors (GET /v1/connectors,
// decision 0094): a connector the page has no screen for is left out, and one the server is not
// built with does not appear.
import type { ComponentType } from 'preact';
import type { MessageKey } from '../i18n/i18n.ts';
import type { InstalledConnector } from '../types.ts';
import { ShopifyConnector } from './shopify.tsx';
import { SquareConnector } from './square.tsx';

type ConnectorScreen = { label: MessageKey; component: ComponentType };

const DRAWN: Readonly<Record<string, ConnectorScreen>> = {
  square: { label: 'nav.square', component: SquareConnector },
  shopify: { label: 'nav.shopify', component: ShopifyConnector },
};

/** The hash path of a connector's screen, from the address the server gives (`/staff/#/settings/shopify`). */
export const screenPath = (c: InstalledConnector): string | null => {
  const hash = c.screen?.split('#')[1];
  return hash === undefined || !hash.startsWith('/') ? null : hash;
};

export function connectorScreens(installed: readonly InstalledConnector[]): Array<ConnectorScreen & { path: string }> {
  return installed.flatMap((c) => {
    const drawn = DRAWN[c.name];
    const path = screenPath(c);
    return drawn === undefined || path === null ? [] : [{ ...drawn, path }];
  });
}
