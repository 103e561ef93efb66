// Signing a pass: pass.json with the icons, hashed into manifest.json, signed (detached PKCS#7) with
// the Pass Type ID certificate, zipped, by passkit-generator. Only this and passkit-generator load on
// a signing thread (sign-worker.ts), so a thread starts light.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PKPass } from 'passkit-generator';
import type { AppleWalletConfig } from '../../../core/config.ts';

/** scripts/build-icons.ts renders the pass icons with the manifest's (npm run build:web). */
const ICONS = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'dist', 'web', 'icons');
const ICON_FILES = { 'icon.png': 'pass-icon.png', 'icon@2x.png': 'pass-icon@2x.png', 'icon@3x.png': 'pass-icon@3x.png' } as const;
let icons: Record<string, Buffer> | undefined;

function passIcons(): Record<string, Buffer> {
  icons ??= Object.fromEntries(Object.entries(ICON_FILES).map(([name, file]) => [name, readFileSync(path.join(ICONS, file))]));
  return icons;
}

/** The key material that signs passes: what a signing thread is given once (pass-signer.ts). */
export type PassSigningKeys = Pick<AppleWalletConfig, 'wwdr' | 'cert' | 'key' | 'keyPassphrase'>;

/**
 * The signed .pkpass (a zip: pass.json, icons, manifest.json and its detached PKCS#7 signature).
 * About 30 ms of synchronous work: the service calls it on a signing thread (pass-signer.ts), never
 * on the event loop that answers requests.
 */
export function signPass(keys: PassSigningKeys, passJsonText: string): Buffer {
  const pass = new PKPass(
    { 'pass.json': Buffer.from(passJsonText), ...passIcons() },
    { wwdr: keys.wwdr, signerCert: keys.cert, signerKey: keys.key, signerKeyPassphrase: keys.keyPassphrase },
  );
  return pass.getAsBuffer();
}
