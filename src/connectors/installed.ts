// The connectors this readybell is built with: the one list that names them (decision 0076). Each
// is installed only when the operator configured it (its `configured`); the app, the route table
// and /readyz iterate the modules made from this list (connectors/module.ts).
import type { Connector } from './port.ts';
import { shopifyConnector } from './shopify/connector.ts';
import { squareConnector } from './square/connector.ts';

export const CONNECTORS: readonly Connector[] = [squareConnector, shopifyConnector];
