// The connector port (decision 0076): what a point-of-sale connector is, whatever the POS. A
// connector is one value of this type, declared in its own folder (connectors/<name>/connector.ts)
// and listed once in connectors/installed.ts; connectors/module.ts turns it into the module the
// app installs (its routes, jobs, schedule, hook and health), so nothing outside its folder names it.
//
// Paths follow from the name: the POS's webhooks at /connectors/<name>/webhook, the OAuth callback
// at /connectors/<name>/oauth/callback, the owner's API at /v1/connectors/<name>/….
import type { FastifyInstance } from 'fastify';
import type { Config } from '../core/config.ts';
import type { Services } from '../core/ctx.ts';
import type { JobRegistry } from '../core/job-registry.ts';
import type { TicketHook } from '../core/module.ts';

/** The POS's token answer, as every connector reads it. */
export type TokenGrant = { accessToken: string; refreshToken: string | null; expiresAt: number | null; account: string | null };

/**
 * A connector's OAuth settings as data (as Nango's provider catalogue keeps them): the shared flow
 * (connectors/oauth-flow.ts) builds the authorize URL from them, binds the state to the owner's
 * session, and calls `connected` with the code once the callback is trusted.
 */
export type OAuthSettings = {
  readonly connector: string;
  /** The POS's authorize page for this operator's application, or null when none is configured. */
  authorizeUrl(config: Config): string | null;
  clientId(config: Config): string;
  readonly scopes: readonly string[];
  readonly scopeSeparator: string;
  /** Further query parameters of the authorize page (Square: session=false). */
  readonly params?: Readonly<Record<string, string>>;
  /** Exchanges the code and keeps the connection for the branch; answers the POS's account (for the log). */
  connect(services: Services, branchId: string, code: string, redirectUri: string): Promise<string>;
};

/** What the POS's webhook set off: jobs enqueued, or why it was ignored (kept for the log line). */
export type WebhookOutcome = { jobs: number; ignored: string | null };

export type Connector = {
  readonly name: string;
  /** Its configuration names (README's table), and whether the operator configured it. */
  readonly config: readonly string[];
  configured(config: Config): boolean;
  readonly oauth: OAuthSettings;
  /** Verifies and accepts one webhook delivery from the raw body; a refusal throws an AppError (a problem). */
  webhook(services: Services, rawBody: string, headers: Readonly<Record<string, string | string[] | undefined>>): Promise<WebhookOutcome>;
  /** Its job kinds: the order sync that turns the POS's orders into verbs, and the like. */
  jobs(registry: JobRegistry): void;
  /** How it reacts to readybell's ticket changes (typed: the ticket with its `source`). */
  readonly onTicketChange?: TicketHook;
  /** Refreshes the tokens that run out soon; run as a scheduled job every `refreshEveryMs` and at start. */
  refreshTokens(services: Services): Promise<{ refreshed: number; failed: number }>;
  readonly refreshEveryMs: number;
  /** Its part of /readyz (`connectors.<name>`): counts, no tenant named. */
  health(services: Services): Promise<Record<string, unknown>>;
  /** The shared objects its operations refer to (its connection object), added with the contract's. */
  readonly schemas: readonly object[];
  /** The owner's /v1 routes behind its staff screen, mounted in the authenticated API scope. */
  api(app: FastifyInstance, services: Services): void;
  /** The staff page's screen for it; the OAuth callback returns the browser there. */
  readonly screen: string;
};

export const webhookPath = (name: string): string => `/connectors/${name}/webhook`;
export const callbackPath = (name: string): string => `/connectors/${name}/oauth/callback`;
