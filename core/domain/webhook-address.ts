/**
 * Where a webhook may go (ADR 036). A webhook URL is chosen by a user, so without a guard the worker would
 * make requests into the operator's own network for them (SSRF). Addresses are classified here, in pure code:
 * the submit check refuses literal addresses and the delivery checks every address the host resolves to.
 */
export type AddressKind =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'unique-local'
  | 'cgnat'
  | 'multicast'
  | 'reserved';

/** An IPv4 address as a 32-bit number, or an IPv6 address as a 128-bit one. */
interface ParsedAddress {
  family: 4 | 6;
  value: bigint;
}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

function parseIpv4(text: string): bigint | null {
  const match = IPV4.exec(text);
  if (!match) return null;
  let value = 0n;
  for (const part of match.slice(1)) {
    // Leading zeros are refused: some resolvers read them as octal, so "010.0.0.1" is not one address everywhere.
    if (part.length > 1 && part.startsWith('0')) return null;
    const octet = Number(part);
    if (octet > 255) return null;
    value = (value << 8n) | BigInt(octet);
  }
  return value;
}

function parseIpv6(input: string): bigint | null {
  let text = input.toLowerCase();
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  if (!/^[0-9a-f:.]+$/.test(text)) return null;
  const groups: number[] = [];
  const tail = text.lastIndexOf(':');
  // An embedded IPv4 tail (::ffff:1.2.3.4) stands for the last two groups.
  if (text.includes('.')) {
    const v4 = parseIpv4(text.slice(tail + 1));
    if (v4 === null) return null;
    text = `${text.slice(0, tail + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const split = (part: string) => (part === '' ? [] : part.split(':'));
  const head = split(halves[0] ?? '');
  const rest = halves.length === 2 ? split(halves[1] ?? '') : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  for (const group of [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...rest]) {
    if (!/^[0-9a-f]{1,4}$/.test(group)) return null;
    groups.push(parseInt(group, 16));
  }
  if (groups.length !== 8) return null;
  return groups.reduce((value, group) => (value << 16n) | BigInt(group), 0n);
}

/** The address an IP literal names (IPv6 may come in URL brackets), or null when the text is not one. */
function parseAddress(text: string): ParsedAddress | null {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const v4 = parseIpv4(bare);
  if (v4 !== null) return { family: 4, value: v4 };
  const v6 = bare.includes(':') ? parseIpv6(bare) : null;
  if (v6 === null) return null;
  // IPv4-mapped (::ffff:a.b.c.d) reaches the IPv4 address: it is judged, and matched, as that address.
  if (v6 >> 32n === 0xffffn) return { family: 4, value: v6 & 0xffffffffn };
  return { family: 6, value: v6 };
}

export const isIpAddress = (text: string): boolean => parseAddress(text) !== null;

interface Range {
  family: 4 | 6;
  base: bigint;
  bits: number;
}

const inRange = (address: ParsedAddress, range: Range): boolean => {
  if (address.family !== range.family) return false;
  const width = range.family === 4 ? 32 : 128;
  const shift = BigInt(width - range.bits);
  return address.value >> shift === range.base >> shift;
};

function cidr(text: string): Range {
  const parsed = parseCidr(text);
  if (!parsed) throw new Error(`not a CIDR range: ${text}`);
  return parsed;
}

/** Every range that is not the public internet, with its kind; the first that holds the address decides. */
const SPECIAL_RANGES: { range: Range; kind: AddressKind }[] = [
  { range: cidr('0.0.0.0/8'), kind: 'unspecified' },
  { range: cidr('10.0.0.0/8'), kind: 'private' },
  { range: cidr('100.64.0.0/10'), kind: 'cgnat' },
  { range: cidr('127.0.0.0/8'), kind: 'loopback' },
  { range: cidr('169.254.0.0/16'), kind: 'link-local' },
  { range: cidr('172.16.0.0/12'), kind: 'private' },
  { range: cidr('192.0.0.0/24'), kind: 'reserved' },
  { range: cidr('192.168.0.0/16'), kind: 'private' },
  { range: cidr('198.18.0.0/15'), kind: 'reserved' },
  { range: cidr('224.0.0.0/4'), kind: 'multicast' },
  { range: cidr('240.0.0.0/4'), kind: 'reserved' },
  { range: cidr('::/128'), kind: 'unspecified' },
  { range: cidr('::1/128'), kind: 'loopback' },
  // IPv4-compatible (deprecated): ::7f00:1 is 127.0.0.1 to a stack that still maps it.
  { range: cidr('::/96'), kind: 'reserved' },
  { range: cidr('64:ff9b::/96'), kind: 'reserved' },
  // Local-use NAT64 (RFC 8215), discard-only, Teredo and 6to4 (both carry an IPv4 address a relay would reach), documentation.
  { range: cidr('64:ff9b:1::/48'), kind: 'reserved' },
  { range: cidr('100::/64'), kind: 'reserved' },
  { range: cidr('2001::/32'), kind: 'reserved' },
  { range: cidr('2001:db8::/32'), kind: 'reserved' },
  { range: cidr('2002::/16'), kind: 'reserved' },
  { range: cidr('fc00::/7'), kind: 'unique-local' },
  { range: cidr('fe80::/10'), kind: 'link-local' },
  { range: cidr('fec0::/10'), kind: 'private' },
  { range: cidr('ff00::/8'), kind: 'multicast' },
];

/** The kind of an IP literal, or null when the text is not one. */
export function classifyAddress(text: string): AddressKind | null {
  const address = parseAddress(text);
  if (!address) return null;
  return SPECIAL_RANGES.find(({ range }) => inRange(address, range))?.kind ?? 'public';
}

/** `10.0.0.0/8`, `fd00::/8` or a single address (a /32 or /128); null when malformed. */
export function parseCidr(text: string): Range | null {
  const [addressText, bitsText, ...extra] = text.trim().split('/');
  if (extra.length > 0 || !addressText) return null;
  const address = parseAddress(addressText);
  if (!address) return null;
  const width = address.family === 4 ? 32 : 128;
  if (bitsText !== undefined && !/^\d{1,3}$/.test(bitsText)) return null;
  const bits = bitsText === undefined ? width : Number(bitsText);
  if (bits > width) return null;
  return { family: address.family, base: address.value, bits };
}

/** What the operator allows beyond public https addresses (WEBHOOK_ALLOW_PRIVATE, WEBHOOK_ALLOW_CIDRS, WEBHOOK_ALLOW_HTTP_HOSTS). */
export interface WebhookPolicy {
  allowPrivate: boolean;
  allowCidrs: readonly string[];
  /** Host names (lowercase) that may be called over plain http. */
  allowHttpHosts: readonly string[];
}

/** Whether a webhook may be sent to this IP address under the policy (false for text that is not an address). */
export function addressAllowed(text: string, policy: WebhookPolicy): boolean {
  const kind = classifyAddress(text);
  if (kind === null) return false;
  if (kind === 'public' || policy.allowPrivate) return true;
  const address = parseAddress(text);
  return address !== null && policy.allowCidrs.some((allowed) => {
    const range = parseCidr(allowed);
    return range !== null && inRange(address, range);
  });
}

const MAX_URL_LENGTH = 2048;

/**
 * The submit-time check of a webhook URL: https (http only to hosts the operator allows), no credentials in it,
 * and no literal address the policy refuses (a host name is judged on what it resolves to, at delivery).
 * Returns the problem in words, or null when the URL may be stored.
 */
export function webhookUrlProblem(raw: unknown, policy: WebhookPolicy): string | null {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > MAX_URL_LENGTH) return `must be a URL of at most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  // A trailing dot names the same host (`localhost.` is localhost): judged without it.
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttpHosts.includes(host))) return 'must be an https URL';
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  if (isIpAddress(host)) return addressAllowed(host, policy) ? null : 'must not point at a private, loopback or reserved address';
  if ((host === 'localhost' || host.endsWith('.localhost')) && !policy.allowPrivate) return 'must not point at a private, loopback or reserved address';
  return null;
}
