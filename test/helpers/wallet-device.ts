// An iPhone's Wallet for the tests: it adds a pass served by readybell (unzips the .pkpass, reads
// pass.json) and speaks Apple's PassKit web service to the pass's webServiceURL as Wallet does:
// registers with a push token, and when told (a push), asks which passes changed since its tag and
// fetches each with If-Modified-Since. Test mode has no APNs: a test calls `pushed()` itself.
import { randomBytes } from 'node:crypto';
import { strFromU8, unzipSync } from 'fflate';

export type PassJson = Record<string, any> & {
  serialNumber: string;
  authenticationToken: string;
  webServiceURL: string;
  passTypeIdentifier: string;
};

export type WalletPassCopy = { json: PassJson; files: Record<string, Uint8Array>; lastModified: string | null };

export function readPkpass(body: Uint8Array): { json: PassJson; files: Record<string, Uint8Array> } {
  const files = unzipSync(body);
  return { json: JSON.parse(strFromU8(files['pass.json']!)) as PassJson, files };
}

export class WalletDevice {
  readonly deviceId = randomBytes(16).toString('hex');
  readonly pushToken = randomBytes(32).toString('hex');
  readonly passes = new Map<string, WalletPassCopy>();
  private tag: string | null = null;

  private readonly base: string;

  /** `base`: where readybell really listens (the pass names PUBLIC_URL). */
  constructor(base: string) {
    this.base = base;
  }

  private url(json: PassJson, rest: string): string {
    const service = new URL(json.webServiceURL);
    return `${this.base}${service.pathname}${rest}`;
  }

  /** Adds a served .pkpass, as tapping "Add" in Wallet does. */
  add(body: Uint8Array, lastModified: string | null = null): PassJson {
    const copy = { ...readPkpass(body), lastModified };
    this.passes.set(copy.json.serialNumber, copy);
    return copy.json;
  }

  register(serial: string, token?: string): Promise<Response> {
    const { json } = this.passes.get(serial)!;
    return fetch(this.url(json, `/v1/devices/${this.deviceId}/registrations/${json.passTypeIdentifier}/${serial}`), {
      method: 'POST',
      headers: { authorization: `ApplePass ${token ?? json.authenticationToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ pushToken: this.pushToken }),
    });
  }

  unregister(serial: string): Promise<Response> {
    const { json } = this.passes.get(serial)!;
    return fetch(this.url(json, `/v1/devices/${this.deviceId}/registrations/${json.passTypeIdentifier}/${serial}`), {
      method: 'DELETE',
      headers: { authorization: `ApplePass ${json.authenticationToken}` },
    });
  }

  /** What Wallet does on a push: list what changed since its tag, fetch each. Returns the serials it fetched anew. */
  async pushed(): Promise<string[]> {
    const any = [...this.passes.values()][0]!.json;
    const since = this.tag === null ? '' : `?passesUpdatedSince=${this.tag}`;
    const res = await fetch(this.url(any, `/v1/devices/${this.deviceId}/registrations/${any.passTypeIdentifier}${since}`));
    if (res.status === 204) return [];
    if (res.status !== 200) throw new Error(`serials: ${res.status}`);
    const { serialNumbers, lastUpdated } = (await res.json()) as { serialNumbers: string[]; lastUpdated: string };
    this.tag = lastUpdated;
    const fetched: string[] = [];
    for (const serial of serialNumbers) if ((await this.fetchLatest(serial)).status === 200) fetched.push(serial);
    return fetched;
  }

  /** GET the latest pass, with If-Modified-Since from the copy held; a 200 replaces the copy. */
  async fetchLatest(serial: string, opts: { token?: string; ifModifiedSince?: string | null } = {}): Promise<Response> {
    const copy = this.passes.get(serial)!;
    const headers: Record<string, string> = { authorization: `ApplePass ${opts.token ?? copy.json.authenticationToken}` };
    const ims = opts.ifModifiedSince === undefined ? copy.lastModified : opts.ifModifiedSince;
    if (ims !== null) headers['if-modified-since'] = ims;
    const res = await fetch(this.url(copy.json, `/v1/passes/${copy.json.passTypeIdentifier}/${serial}`), { headers });
    if (res.status === 200) {
      const body = new Uint8Array(await res.clone().arrayBuffer());
      this.passes.set(serial, { ...readPkpass(body), lastModified: res.headers.get('last-modified') });
    }
    return res;
  }

  /** The pass's status field as the device shows it now. */
  status(serial: string): string {
    const fields = this.passes.get(serial)!.json.generic.secondaryFields as Array<{ key: string; value: string }>;
    return fields.find((f) => f.key === 'status')!.value;
  }
}
