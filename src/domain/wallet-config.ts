// The Apple Wallet part of the configuration (docs/wallet.md), parsed by loadConfig (src/config.ts)
// and validated once at start: a certificate that does not parse, a key that does not belong to
// it or a half-configured Pass Type ID stops the process with a message instead of a broken pass.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import type { AppleWalletConfig } from '../core/config.ts';
import { inlineOrFile } from './inline-or-file.ts';

export const APNS_PRODUCTION_URL = 'https://api.push.apple.com';

type Get = (name: string) => string | undefined;

/** A PEM given inline (`\n` escapes allowed, as env files carry them) or as a file (NAME_FILE). */
const pem = (get: Get, name: string, problems: string[]): string | undefined =>
  inlineOrFile(get, name, problems, (v) => v.replace(/\\n/g, '\n'));

export function loadAppleWalletConfig(get: Get, problems: string[]): AppleWalletConfig | null {
  const passTypeId = get('APPLE_PASS_TYPE_ID');
  const teamId = get('APPLE_TEAM_ID');
  const before = problems.length;
  const cert = pem(get, 'APPLE_PASS_CERT', problems);
  const key = pem(get, 'APPLE_PASS_KEY', problems);
  const wwdr = pem(get, 'APPLE_WWDR_CERT', problems);
  const keyPassphrase = get('APPLE_PASS_KEY_PASSPHRASE');
  const given = [passTypeId, teamId, cert, key, wwdr].filter((v) => v !== undefined).length;
  if (problems.length > before) return null;
  if (given === 0) return null;
  if (given !== 5) {
    problems.push('APPLE_PASS_TYPE_ID, APPLE_TEAM_ID, APPLE_PASS_CERT, APPLE_PASS_KEY and APPLE_WWDR_CERT must be set together (or none)');
    return null;
  }
  if (!/^pass\.[A-Za-z0-9.-]+$/.test(passTypeId!))
    problems.push(`APPLE_PASS_TYPE_ID must look like pass.com.example.pickup (got "${passTypeId}")`);
  if (!/^[A-Z0-9]{10}$/.test(teamId!)) problems.push(`APPLE_TEAM_ID must be the 10-character team identifier (got "${teamId}")`);
  const problem = certificateProblem(cert!, key!, keyPassphrase, wwdr!);
  if (problem !== null) problems.push(problem);
  const apnsUrl = (get('APNS_URL') ?? APNS_PRODUCTION_URL).replace(/\/+$/, '');
  if (!/^https:\/\/[^\s/]+$/.test(apnsUrl))
    problems.push(`APNS_URL must be an https origin such as ${APNS_PRODUCTION_URL} (got "${apnsUrl}")`);
  const apnsCa = get('APNS_CA_FILE') === undefined ? undefined : pem(get, 'APNS_CA', problems);
  if (problems.length > before) return null;
  return { passTypeId: passTypeId!, teamId: teamId!, cert: cert!, key: key!, keyPassphrase, wwdr: wwdr!, apnsUrl, apnsCa };
}

function certificateProblem(cert: string, key: string, passphrase: string | undefined, wwdr: string): string | null {
  let passCert: X509Certificate;
  try {
    passCert = new X509Certificate(cert);
  } catch {
    return 'APPLE_PASS_CERT is not a PEM certificate';
  }
  try {
    new X509Certificate(wwdr);
  } catch {
    return 'APPLE_WWDR_CERT is not a PEM certificate (download the WWDR intermediate from Apple PKI)';
  }
  try {
    const privateKey = createPrivateKey({ key, passphrase });
    if (!passCert.checkPrivateKey(privateKey)) return 'APPLE_PASS_KEY does not belong to APPLE_PASS_CERT';
  } catch {
    return 'APPLE_PASS_KEY is not a PEM private key (or APPLE_PASS_KEY_PASSPHRASE is wrong)';
  }
  return null;
}
