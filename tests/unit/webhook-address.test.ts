import test from 'ava';
import { addressAllowed, classifyAddress, parseCidr, webhookUrlProblem, type AddressKind, type WebhookPolicy } from '../../core/domain/webhook-address.ts';

// Pinned literally: the ranges of RFC 6890 and friends, each with an address inside and one just outside.
const TABLE: [string, AddressKind | null][] = [
  ['0.0.0.0', 'unspecified'],
  ['0.255.255.255', 'unspecified'],
  ['1.0.0.0', 'public'],
  ['8.8.8.8', 'public'],
  ['9.255.255.255', 'public'],
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['11.0.0.0', 'public'],
  ['100.63.255.255', 'public'],
  ['100.64.0.1', 'cgnat'],
  ['100.127.255.255', 'cgnat'],
  ['100.128.0.0', 'public'],
  ['126.255.255.255', 'public'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['128.0.0.0', 'public'],
  ['169.253.255.255', 'public'],
  ['169.254.169.254', 'link-local'],
  ['169.255.0.0', 'public'],
  ['172.15.255.255', 'public'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['172.32.0.0', 'public'],
  ['191.255.255.255', 'public'],
  ['192.0.0.0', 'reserved'],
  ['192.0.0.8', 'reserved'],
  ['192.0.0.255', 'reserved'],
  ['192.0.1.0', 'public'],
  ['192.167.255.255', 'public'],
  ['192.168.1.1', 'private'],
  ['192.169.0.0', 'public'],
  ['198.17.255.255', 'public'],
  ['198.18.0.1', 'reserved'],
  ['198.19.255.255', 'reserved'],
  ['198.20.0.0', 'public'],
  ['223.255.255.255', 'public'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.255', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'reserved'],
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['::2', 'reserved'],
  ['::7f00:1', 'reserved'],
  ['::a9fe:a9fe', 'reserved'],
  ['::1:0:0:0', 'public'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::ffff:10.1.2.3', 'private'],
  ['::ffff:169.254.169.254', 'link-local'],
  ['::ffff:8.8.8.8', 'public'],
  ['64:ff9b::a00:1', 'reserved'],
  ['64:ff9b::7f00:1', 'reserved'],
  ['64:ff9b::1:0:0', 'public'],
  ['64:ff9b:1::7f00:1', 'reserved'],
  ['64:ff9b:1:ffff:ffff:ffff:ffff:ffff', 'reserved'],
  ['64:ff9b:2::1', 'public'],
  ['100::1', 'reserved'],
  ['100:0:0:1::1', 'public'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'],
  ['2001:1::1', 'public'],
  ['2001:db8::1', 'reserved'],
  ['2001:db9::1', 'public'],
  ['2002:7f00:1::1', 'reserved'],
  ['2002:a9fe:a9fe::1', 'reserved'],
  ['2003::1', 'public'],
  ['fbff:ffff::1', 'public'],
  ['fc00::1', 'unique-local'],
  ['fd12:3456::1', 'unique-local'],
  ['fe00::1', 'public'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['febf:ffff::1', 'link-local'],
  ['fec0::1', 'private'],
  ['feff:ffff::1', 'private'],
  ['ff02::1', 'multicast'],
  ['2001:4860:4860::8888', 'public'],
  ['2606:4700::1111', 'public'],
  ['example.com', null],
  ['010.0.0.1', null],
  ['256.1.1.1', null],
  ['1.2.3', null],
  ['1::2::3', null],
  ['12345::1', null],
  ['1:2:3:4:5:6:7:8:9', null],
  ['1:2:3:4::5:6:7:8', null],
  ['1:2:3:4:5:6:7:8::9::a', null],
  ['::ffff:1.2.3', null],
];

for (const [address, kind] of TABLE) {
  test(`classifies ${address} as ${kind ?? 'not an address'}`, (t) => {
    t.is(classifyAddress(address), kind);
  });
}

const STRICT: WebhookPolicy = { allowPrivate: false, allowCidrs: [], allowHttpHosts: [] };

// Pinned literally: which addresses of the table a webhook may reach under the default policy, and which it may not.
const ALLOWED_BY_DEFAULT = [
  '1.0.0.0', '8.8.8.8', '9.255.255.255', '11.0.0.0', '100.63.255.255', '100.128.0.0', '126.255.255.255', '128.0.0.0', '169.253.255.255',
  '169.255.0.0', '172.15.255.255', '172.32.0.0', '191.255.255.255', '192.0.1.0', '192.167.255.255', '192.169.0.0', '198.17.255.255',
  '198.20.0.0', '223.255.255.255', '::1:0:0:0', '::ffff:8.8.8.8', '64:ff9b::1:0:0', '64:ff9b:2::1', '100:0:0:1::1', '2001:1::1', '2001:db9::1', '2003::1', 'fbff:ffff::1', 'fe00::1', '2001:4860:4860::8888', '2606:4700::1111',
];
const REFUSED_BY_DEFAULT = [
  '0.0.0.0', '0.255.255.255', '10.0.0.1', '10.255.255.255', '100.64.0.1', '100.127.255.255', '127.0.0.1', '127.255.255.254', '169.254.169.254',
  '172.16.0.1', '172.31.255.255', '192.0.0.0', '192.0.0.8', '192.0.0.255', '192.168.1.1', '198.18.0.1', '198.19.255.255', '224.0.0.1',
  '239.255.255.255', '240.0.0.1', '255.255.255.255', '::', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::2', '::7f00:1', '::a9fe:a9fe', '::ffff:127.0.0.1', '::ffff:7f00:1',
  '::ffff:10.1.2.3', '::ffff:169.254.169.254', '64:ff9b::a00:1', '64:ff9b::7f00:1', '64:ff9b:1::7f00:1', '64:ff9b:1:ffff:ffff:ffff:ffff:ffff', '100::1',
  '2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001:db8::1', '2002:7f00:1::1', '2002:a9fe:a9fe::1', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'fe80::1%eth0',
  'febf:ffff::1', 'fec0::1', 'feff:ffff::1', 'ff02::1',
];

test('only public addresses are allowed by default; WEBHOOK_ALLOW_PRIVATE allows every kind', (t) => {
  const addresses = TABLE.filter(([, kind]) => kind !== null).map(([address]) => address);
  t.deepEqual(addresses.filter((address) => addressAllowed(address, STRICT)), ALLOWED_BY_DEFAULT);
  t.deepEqual(addresses.filter((address) => !addressAllowed(address, STRICT)), REFUSED_BY_DEFAULT);
  t.true(REFUSED_BY_DEFAULT.every((address) => addressAllowed(address, { ...STRICT, allowPrivate: true })));
  // Text that is no address is never allowed, not even with WEBHOOK_ALLOW_PRIVATE.
  for (const [address] of TABLE.filter(([, kind]) => kind === null)) t.false(addressAllowed(address, { ...STRICT, allowPrivate: true }), address);
});

test('a CIDR allow-list opens exactly its ranges, IPv4-mapped addresses matched as IPv4', (t) => {
  const policy: WebhookPolicy = { ...STRICT, allowCidrs: ['127.0.0.1/32', '10.1.0.0/16', 'fd00::/8'] };
  t.true(addressAllowed('127.0.0.1', policy));
  t.true(addressAllowed('::ffff:127.0.0.1', policy));
  t.false(addressAllowed('127.0.0.2', policy));
  t.true(addressAllowed('10.1.255.255', policy));
  t.false(addressAllowed('10.2.0.0', policy));
  t.true(addressAllowed('fd12::1', policy));
  t.false(addressAllowed('fc00::1', policy));
  t.false(addressAllowed('::1', policy));
  t.is(parseCidr('10.0.0.0/33'), null);
  t.is(parseCidr('10.0.0.0/8/1'), null);
  t.is(parseCidr('nonsense/8'), null);
  // A missing or signed prefix length is malformed, not /0 (which would open every address).
  t.is(parseCidr('10.0.0.0/'), null);
  t.is(parseCidr('10.0.0.0/-1'), null);
  t.deepEqual(parseCidr('10.0.0.0/8'), { family: 4, base: 0x0a000000n, bits: 8 });
  t.deepEqual(parseCidr('::ffff:127.0.0.1'), { family: 4, base: 0x7f000001n, bits: 32 });
});

test('the submit check of a webhook URL', (t) => {
  const httpLocal: WebhookPolicy = { ...STRICT, allowHttpHosts: ['receiver.internal'] };
  const cases: [unknown, WebhookPolicy, string | null][] = [
    ['https://hooks.example.com/a?b=c', STRICT, null],
    ['https://8.8.8.8/hook', STRICT, null],
    ['http://hooks.example.com/a', STRICT, 'must be an https URL'],
    ['http://receiver.internal/a', httpLocal, null],
    ['http://RECEIVER.internal/a', httpLocal, null],
    ['ftp://hooks.example.com/a', STRICT, 'must be an https URL'],
    ['https://user:pw@hooks.example.com/a', STRICT, 'must not carry credentials'],
    ['https://user@hooks.example.com/a', STRICT, 'must not carry credentials'],
    ['https://:pw@hooks.example.com/a', STRICT, 'must not carry credentials'],
    ['https://127.0.0.1/hook', STRICT, 'must not point at a private, loopback or reserved address'],
    ['https://2130706433/hook', STRICT, 'must not point at a private, loopback or reserved address'],
    ['https://[::1]/hook', STRICT, 'must not point at a private, loopback or reserved address'],
    ['https://[::ffff:192.168.0.1]/hook', STRICT, 'must not point at a private, loopback or reserved address'],
    ['https://169.254.169.254/latest/meta-data', STRICT, 'must not point at a private, loopback or reserved address'],
    ['https://localhost/hook', STRICT, 'must not point at a private, loopback or reserved address'],
    ['https://api.localhost/hook', STRICT, 'must not point at a private, loopback or reserved address'],
    ['https://localhost./hook', STRICT, 'must not point at a private, loopback or reserved address'],
    ['https://api.localhost./hook', STRICT, 'must not point at a private, loopback or reserved address'],
    ['https://LOCALHOST/hook', STRICT, 'must not point at a private, loopback or reserved address'],
    ['https://0x7f.1/hook', STRICT, 'must not point at a private, loopback or reserved address'],
    ['https://[64:ff9b::a9fe:a9fe]/hook', STRICT, 'must not point at a private, loopback or reserved address'],
    ['https://localhost/hook', { ...STRICT, allowPrivate: true }, null],
    ['https://hooks.example.com./a', STRICT, null],
    ['https://127.0.0.1/hook', { ...STRICT, allowPrivate: true }, null],
    ['https://127.0.0.1/hook', { ...STRICT, allowCidrs: ['127.0.0.0/8'] }, null],
    ['not a url', STRICT, 'must be an absolute URL'],
    ['', STRICT, 'must be a URL of at most 2048 characters'],
    [42, STRICT, 'must be a URL of at most 2048 characters'],
    [`https://example.com/${'a'.repeat(2048)}`, STRICT, 'must be a URL of at most 2048 characters'],
    [`https://example.com/${'a'.repeat(2048 - 20)}`, STRICT, null],
  ];
  for (const [url, policy, problem] of cases) t.is(webhookUrlProblem(url, policy), problem, String(url));
});
