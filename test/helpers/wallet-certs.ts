// Certificates for Apple Wallet tests, made with the openssl CLI into a temporary folder: a root CA
// (stands in for Apple's), a WWDR-like intermediate it signs, the Pass Type ID certificate the
// intermediate signs (its key signs passes and authenticates to APNs), and a TLS certificate for
// the fake APNs (signed by the root, for 127.0.0.1). Each test file makes its own.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const PASS_TYPE_ID = 'pass.test.readybell.pickup';
export const TEAM_ID = 'TEAM123456';

export type WalletCerts = {
  dir: string;
  /** Files: the root CA, and the pass certificate chain's pieces. */
  caFile: string;
  wwdrFile: string;
  passCertFile: string;
  passKeyFile: string;
  server: { cert: string; key: string };
  ca: string;
  /** The environment a readybell needs for Apple Wallet, APNs at `apnsUrl`. */
  env(apnsUrl: string): Record<string, string>;
  drop(): void;
};

const openssl = (args: string[], cwd: string): void => {
  execFileSync('openssl', args, { cwd, stdio: 'pipe' });
};

/** `passDays`: how long the Pass Type ID certificate is valid (2 days: it expires soon, as a warning says). */
export function makeWalletCerts(opts: { passDays?: number } = {}): WalletCerts {
  const dir = mkdtempSync(path.join(tmpdir(), 'readybell-wallet-'));
  const p = (f: string): string => path.join(dir, f);
  const key = (name: string): void => openssl(['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', name], dir);
  const caExt = 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n';
  writeFileSync(p('ca.ext'), caExt);
  writeFileSync(p('leaf.ext'), 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n');
  writeFileSync(
    p('server.ext'),
    'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n',
  );
  key('ca.key');
  openssl(
    [
      'req',
      '-x509',
      '-new',
      '-key',
      'ca.key',
      '-subj',
      '/CN=Test Root CA',
      '-days',
      '2',
      '-out',
      'ca.pem',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    dir,
  );
  const signed = (name: string, subject: string, issuer: string, ext: string, days = 2): void => {
    key(`${name}.key`);
    openssl(['req', '-new', '-key', `${name}.key`, '-subj', subject, '-out', `${name}.csr`], dir);
    openssl(
      [
        'x509',
        '-req',
        '-in',
        `${name}.csr`,
        '-CA',
        `${issuer}.pem`,
        '-CAkey',
        `${issuer}.key`,
        '-CAcreateserial',
        '-days',
        String(days),
        '-extfile',
        ext,
        '-out',
        `${name}.pem`,
      ],
      dir,
    );
  };
  signed('wwdr', '/CN=Test Worldwide Developer Relations/O=Test', 'ca', 'ca.ext');
  signed('pass', `/UID=${PASS_TYPE_ID}/CN=Pass Type ID: ${PASS_TYPE_ID}/OU=${TEAM_ID}`, 'wwdr', 'leaf.ext', opts.passDays ?? 2);
  signed('server', '/CN=127.0.0.1', 'ca', 'server.ext');
  const read = (f: string): string => readFileSync(p(f), 'utf8');
  return {
    dir,
    caFile: p('ca.pem'),
    wwdrFile: p('wwdr.pem'),
    passCertFile: p('pass.pem'),
    passKeyFile: p('pass.key'),
    server: { cert: read('server.pem'), key: read('server.key') },
    ca: read('ca.pem'),
    env: (apnsUrl) => ({
      APPLE_PASS_TYPE_ID: PASS_TYPE_ID,
      APPLE_TEAM_ID: TEAM_ID,
      APPLE_PASS_CERT_FILE: p('pass.pem'),
      APPLE_PASS_KEY_FILE: p('pass.key'),
      APPLE_WWDR_CERT_FILE: p('wwdr.pem'),
      APNS_URL: apnsUrl,
      APNS_CA_FILE: p('ca.pem'),
    }),
    drop: () => rmSync(dir, { recursive: true, force: true }),
  };
}
