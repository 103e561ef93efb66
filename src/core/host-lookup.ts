// Name resolution for the hosts readybell connects to on a customer's or an integrator's behalf
// (webhook receivers, customers' push services): checked against the address policy at creation and
// at connection time (webhooks/http-client.ts). A port,
// so that tests answer for names they do not own.

export type ResolvedAddress = { address: string; family: number };

/** Resolves a host name to every address it has. Tests substitute their own. */
export type HostLookup = (hostname: string) => Promise<ResolvedAddress[]>;
