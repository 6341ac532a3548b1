import type { Mutation } from '../mutation.ts';

const ADDRESS = 'core/domain/webhook-address.ts';
const UNIT = ['tests/unit/webhook-address.test.ts'];
const SENDER = 'adapters/webhook/http-webhook-sender.ts';
const SENDER_TESTS = ['tests/integration/webhook-sender.test.ts'];
const SECRETS = 'core/use-cases/webhooks/webhook-secrets.service.ts';
const SECRET_TESTS = ['tests/integration/webhook-secret.test.ts'];
const RETRY = 'core/domain/webhook-retry.ts';
const RETRY_TESTS = ['tests/unit/webhook-retry.test.ts'];

/** Webhooks (ADR 036): the SSRF guard, range by range, and the delivery transport's guards. */
export const MUTATIONS: Mutation[] = [
  { name: 'webhooks: SSRF range 0.0.0.0/8 (unspecified) treated as public', file: ADDRESS, find: "  { range: cidr('0.0.0.0/8'), kind: 'unspecified' },\n", replace: '', tests: UNIT },
  { name: 'webhooks: SSRF range 10.0.0.0/8 (private) treated as public', file: ADDRESS, find: "  { range: cidr('10.0.0.0/8'), kind: 'private' },\n", replace: '', tests: UNIT },
  { name: 'webhooks: SSRF range 100.64.0.0/10 (cgnat) treated as public', file: ADDRESS, find: "  { range: cidr('100.64.0.0/10'), kind: 'cgnat' },\n", replace: '', tests: UNIT },
  { name: 'webhooks: SSRF range 127.0.0.0/8 (loopback) treated as public', file: ADDRESS, find: "  { range: cidr('127.0.0.0/8'), kind: 'loopback' },\n", replace: '', tests: UNIT },
  { name: 'webhooks: SSRF range 169.254.0.0/16 (link-local) treated as public', file: ADDRESS, find: "  { range: cidr('169.254.0.0/16'), kind: 'link-local' },\n", replace: '', tests: UNIT },
  { name: 'webhooks: SSRF range 172.16.0.0/12 (private) treated as public', file: ADDRESS, find: "  { range: cidr('172.16.0.0/12'), kind: 'private' },\n", replace: '', tests: UNIT },
  { name: 'webhooks: SSRF range 192.168.0.0/16 (private) treated as public', file: ADDRESS, find: "  { range: cidr('192.168.0.0/16'), kind: 'private' },\n", replace: '', tests: UNIT },
  { name: 'webhooks: SSRF range 224.0.0.0/4 (multicast) treated as public', file: ADDRESS, find: "  { range: cidr('224.0.0.0/4'), kind: 'multicast' },\n", replace: '', tests: UNIT },
  { name: 'webhooks: SSRF range 240.0.0.0/4 (reserved) treated as public', file: ADDRESS, find: "  { range: cidr('240.0.0.0/4'), kind: 'reserved' },\n", replace: '', tests: UNIT },
  { name: 'webhooks: SSRF range ::/128 (unspecified) treated as public', file: ADDRESS, find: "  { range: cidr('::/128'), kind: 'unspecified' },\n", replace: '', tests: UNIT },
  { name: 'webhooks: SSRF range ::1/128 (loopback) treated as public', file: ADDRESS, find: "  { range: cidr('::1/128'), kind: 'loopback' },\n", replace: '', tests: UNIT },
  { name: 'webhooks: SSRF range fc00::/7 (unique-local) treated as public', file: ADDRESS, find: "  { range: cidr('fc00::/7'), kind: 'unique-local' },\n", replace: '', tests: UNIT },
  { name: 'webhooks: SSRF range fe80::/10 (link-local) treated as public', file: ADDRESS, find: "  { range: cidr('fe80::/10'), kind: 'link-local' },\n", replace: '', tests: UNIT },
  { name: 'webhooks: SSRF range ff00::/8 (multicast) treated as public', file: ADDRESS, find: "  { range: cidr('ff00::/8'), kind: 'multicast' },\n", replace: '', tests: UNIT },
  {
    name: 'webhooks: IPv4-mapped IPv6 not judged as its IPv4 address',
    file: ADDRESS,
    find: 'if (v6 >> 32n === 0xffffn) return',
    replace: 'if (v6 >> 32n === -1n) return',
    tests: UNIT,
  },
  {
    name: 'webhooks: a refused address allowed without WEBHOOK_ALLOW_PRIVATE',
    file: ADDRESS,
    find: "if (kind === 'public' || policy.allowPrivate) return true;",
    replace: 'return true;',
    tests: UNIT,
  },
  {
    name: 'webhooks: the CIDR allow-list opens every address',
    file: ADDRESS,
    find: 'return range !== null && inRange(address, range);',
    replace: 'return range !== null;',
    tests: UNIT,
  },
  {
    name: 'webhooks: plain http accepted for any host',
    file: ADDRESS,
    find: "!(url.protocol === 'http:' && policy.allowHttpHosts.includes(host))",
    replace: "!(url.protocol === 'http:')",
    tests: UNIT,
  },
  {
    name: 'webhooks: submit check lets literal private addresses through',
    file: ADDRESS,
    find: "if (isIpAddress(host)) return addressAllowed(host, policy) ? null : ",
    replace: "if (isIpAddress(host)) return true ? null : ",
    tests: UNIT,
  },
  {
    name: 'webhooks: submit check lets localhost through',
    file: ADDRESS,
    find: "if ((host === 'localhost' || host.endsWith('.localhost')) && !policy.allowPrivate)",
    replace: 'if (false)',
    tests: UNIT,
  },
  {
    name: 'webhooks: signature does not cover the body',
    file: SENDER,
    find: '.sign(request.id, request.timestamp, request.body)',
    replace: ".sign(request.id, request.timestamp, '')",
    tests: SENDER_TESTS,
  },
  {
    name: 'webhooks: rotation signs with the newest secret only',
    file: SENDER,
    find: "'webhook-signature': request.secrets.map(",
    replace: "'webhook-signature': request.secrets.slice(0, 1).map(",
    tests: SENDER_TESTS,
  },
  {
    name: 'webhooks: a redirect counts as delivered',
    file: SENDER,
    find: 'if (statusCode >= 200 && statusCode < 300) return { delivered: true, statusCode };',
    replace: 'if (statusCode >= 200 && statusCode < 400) return { delivered: true, statusCode };',
    tests: SENDER_TESTS,
  },
  {
    name: 'webhooks: no total timeout on a delivery',
    file: SENDER,
    find: "error: `no answer within ${this.options.timeoutMs} ms` }), this.options.timeoutMs);",
    replace: "error: `no answer within ${this.options.timeoutMs} ms` }), 2 ** 31 - 1);",
    tests: SENDER_TESTS,
  },
  {
    name: 'webhooks: the answer is read to its end, however long',
    file: SENDER,
    find: '          if (bytes >= RESPONSE_CAP_BYTES) done();\n',
    replace: '',
    tests: SENDER_TESTS,
  },
  {
    name: 'webhooks: resolved addresses not checked at delivery (SSRF through DNS)',
    file: SENDER,
    find: 'const refused = addresses.find((entry) => !addressAllowed(entry.address, this.options.policy));',
    replace: 'const refused = addresses.find(() => false);',
    tests: SENDER_TESTS,
  },
  {
    name: 'webhooks: the URL not checked again at delivery (literal loopback, plain http)',
    file: SENDER,
    find: 'if (problem) return { delivered: false',
    replace: 'if (false) return { delivered: false',
    tests: SENDER_TESTS,
  },
  {
    name: 'webhooks: rotation without its compare-and-set (concurrent rotations lose one)',
    file: 'adapters/sequelize/sequelize-webhook-secret-store.ts',
    find: '{ where: { user_id: userId, secret: expected }, ...s.options }',
    replace: '{ where: { user_id: userId }, ...s.options }',
    tests: SECRET_TESTS,
  },
  {
    name: 'webhooks: the replaced secret keeps signing after the grace period',
    file: SECRETS,
    find: 'stored.previousUntil > now ? stored.previousSecret : null',
    replace: 'true ? stored.previousSecret : null',
    tests: SECRET_TESTS,
  },
  {
    name: 'webhooks: the replaced secret does not sign during the grace period',
    file: SECRETS,
    find: 'return previous ? [stored.secret, previous] : [stored.secret];',
    replace: 'return [stored.secret];',
    tests: SECRET_TESTS,
  },
  {
    name: 'webhooks: concurrent first reads fail instead of taking the secret that won',
    file: 'adapters/sequelize/sequelize-webhook-secret-store.ts',
    find: 'if (!(error instanceof UniqueConstraintError)) throw error;',
    replace: 'throw error;',
    tests: SECRET_TESTS,
  },
  {
    name: 'webhooks: retry bound - attempts beyond WEBHOOK_MAX_ATTEMPTS',
    file: RETRY,
    find: 'if (attempt >= budget.maxAttempts) return null;',
    replace: 'if (attempt > budget.maxAttempts) return null;',
    tests: RETRY_TESTS,
  },
  {
    name: 'webhooks: retry bound - no give-up once the window has run out',
    file: RETRY,
    find: 'if (remaining <= 0) return null;',
    replace: '',
    tests: RETRY_TESTS,
  },
  {
    name: 'webhooks: retry bound - the last wait runs past the window',
    file: RETRY,
    find: 'base * 2 ** (attempt - 1), remaining);',
    replace: 'base * 2 ** (attempt - 1));',
    tests: RETRY_TESTS,
  },
  {
    name: 'webhooks: retry without jitter',
    file: RETRY,
    find: 'Math.ceil(random() * ceiling)',
    replace: 'Math.ceil(ceiling)',
    tests: RETRY_TESTS,
  },
  {
    name: 'webhooks: retry delay not capped at 15 minutes',
    file: RETRY,
    find: 'Math.min(MAX_RETRY_DELAY_SECONDS, ',
    replace: 'Math.min(',
    tests: RETRY_TESTS,
  },
];
