import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyAddress, isAddressAllowed, type AddressKind } from '../../src/domain/address-policy.ts';

const CASES: Array<[string, AddressKind]> = [
  // IPv4 public, including the neighbours of every special block
  ['93.184.216.34', 'public'],
  ['8.8.8.8', 'public'],
  ['1.1.1.1', 'public'],
  ['9.255.255.255', 'public'],
  ['11.0.0.0', 'public'],
  ['100.63.255.255', 'public'],
  ['100.128.0.0', 'public'],
  ['126.255.255.255', 'public'],
  ['128.0.0.0', 'public'],
  ['169.253.255.255', 'public'],
  ['169.255.0.0', 'public'],
  ['172.15.255.255', 'public'],
  ['172.32.0.0', 'public'],
  ['192.0.1.0', 'public'],
  ['192.0.3.0', 'public'],
  ['192.167.255.255', 'public'],
  ['192.169.0.0', 'public'],
  ['198.17.255.255', 'public'],
  ['198.20.0.0', 'public'],
  ['223.255.255.255', 'public'],
  // IPv4 special
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['10.0.0.0', 'private'],
  ['10.255.255.255', 'private'],
  ['172.16.0.0', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.0.1', 'private'],
  ['192.168.255.255', 'private'],
  ['100.64.0.0', 'cgnat'],
  ['100.127.255.255', 'cgnat'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['169.254.169.254', 'link-local'],
  ['169.254.0.1', 'link-local'],
  ['192.0.0.8', 'reserved'],
  ['192.88.99.1', 'reserved'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.254', 'reserved'],
  ['192.0.2.1', 'documentation'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.200', 'documentation'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.255', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  // IPv6
  ['2606:2800:220:1:248:1893:25c8:1946', 'public'],
  ['2001:4860:4860::8888', 'public'],
  ['2a00:1450:4001:81b::200e', 'public'],
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['febf::1', 'link-local'],
  ['fec0::1', 'site-local'],
  ['fc00::1', 'unique-local'],
  ['fd12:3456:789a::1', 'unique-local'],
  ['ff02::1', 'multicast'],
  ['ff05::2', 'multicast'],
  ['2001:db8::1', 'documentation'],
  ['3fff::1', 'documentation'],
  ['2001::1', 'reserved'],
  ['2001:2::1', 'reserved'],
  ['100::1', 'reserved'],
  ['64:ff9b:1::1', 'reserved'],
  ['4000::1', 'reserved'],
  ['::2', 'unspecified'], // IPv4-compatible 0.0.0.2, inside 0.0.0.0/8
  // IPv4 inside IPv6: the IPv4 rules decide
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::ffff:169.254.169.254', 'link-local'],
  ['::ffff:a9fe:a9fe', 'link-local'],
  ['::ffff:10.0.0.1', 'private'],
  ['::ffff:93.184.216.34', 'public'],
  ['::127.0.0.1', 'loopback'],
  ['::ffff:0:127.0.0.1', 'loopback'],
  ['64:ff9b::127.0.0.1', 'loopback'],
  ['64:ff9b::93.184.216.34', 'public'],
  ['64:ff9b::a9fe:a9fe', 'link-local'],
  ['2002:7f00:1::', 'loopback'],
  ['2002:c0a8:101::1', 'private'],
  ['2002:5db8:d822::1', 'public'],
  // not addresses
  ['example.com', 'invalid'],
  ['', 'invalid'],
  ['1.2.3', 'invalid'],
  ['256.1.1.1', 'invalid'],
  ['::g', 'invalid'],
];

test('every special-purpose block is classified, and its neighbours are public', () => {
  for (const [address, kind] of CASES) assert.equal(classifyAddress(address), kind, address);
});

test('private kinds pass only when allowed; never-receivers and invalid input never pass', () => {
  const privateKinds = new Set<AddressKind>(['loopback', 'private', 'link-local', 'unique-local', 'site-local', 'cgnat']);
  for (const [address] of CASES) {
    const kind = classifyAddress(address);
    const strict = isAddressAllowed(address, { allowPrivate: false });
    const lenient = isAddressAllowed(address, { allowPrivate: true });
    assert.equal(strict.allowed, kind === 'public', address);
    assert.equal(lenient.allowed, kind === 'public' || privateKinds.has(kind), address);
    assert.equal(strict.kind, kind);
    if (!strict.allowed) assert.match(strict.reason, new RegExp(`^${address.replace(/[[\]().%]/g, '\\$&')} is `));
  }
});

test('the cloud metadata address is explained as such', () => {
  assert.equal(
    isAddressAllowed('169.254.169.254', { allowPrivate: false }).reason,
    '169.254.169.254 is a link-local address (such as a cloud metadata service)',
  );
});
