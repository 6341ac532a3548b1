import { randomUUID } from 'node:crypto';
import test from 'ava';
import { startTestApp } from '../support/test-app.ts';

// TRUST_PROXY decides whose X-Forwarded-For names the client, and so which address the sign-up and login limits count.
const LIMITS = { REGISTER_MAX_PER_ADDRESS: '2', LOGIN_MAX_FAILURES_PER_ADDRESS: '2' };
const from = (ip: string) => ({ 'x-forwarded-for': ip });
const signUpBody = () => ({ email: `proxy-${randomUUID()}@example.com`, password: 'correct horse battery', displayName: 'Proxy' });
const wrongLogin = () => ({ email: `nobody-${randomUUID()}@example.com`, password: 'not the password' });

test('TRUST_PROXY as a CIDR that holds the balancer: two clients behind it get separate sign-up and login limits', async (t) => {
  const app = await startTestApp('sqlite', { ...LIMITS, TRUST_PROXY: '127.0.0.0/8' });
  t.teardown(() => app.close());
  const client = app.client();
  for (let i = 0; i < 2; i++) t.is((await client.post('/auth/register', signUpBody(), from('203.0.113.10'))).status, 201);
  t.is((await client.post('/auth/register', signUpBody(), from('203.0.113.10'))).status, 429, 'the first client used its sign-ups');
  t.is((await client.post('/auth/register', signUpBody(), from('203.0.113.20'))).status, 201, 'the second client has its own');

  for (let i = 0; i < 2; i++) t.is((await client.post('/auth/login', wrongLogin(), from('198.51.100.1'))).status, 401);
  t.is((await client.post('/auth/login', wrongLogin(), from('198.51.100.1'))).status, 429);
  t.is((await client.post('/auth/login', wrongLogin(), from('198.51.100.2'))).status, 401, 'the second client is not locked out');
});

test('TRUST_PROXY=false: X-Forwarded-For is ignored, every request counts against the peer address', async (t) => {
  const app = await startTestApp('sqlite', { ...LIMITS, TRUST_PROXY: 'false' });
  t.teardown(() => app.close());
  const client = app.client();
  t.is((await client.post('/auth/register', signUpBody(), from('203.0.113.10'))).status, 201);
  t.is((await client.post('/auth/register', signUpBody(), from('203.0.113.20'))).status, 201);
  const forged = await client.post('/auth/register', signUpBody(), from('203.0.113.30'));
  t.is(forged.status, 429, 'a forged header does not buy a fresh limit');
  t.is(forged.body.statusCode, 429);

  for (let i = 0; i < 2; i++) t.is((await client.post('/auth/login', wrongLogin(), from(`198.51.100.${i + 1}`))).status, 401);
  t.is((await client.post('/auth/login', wrongLogin(), from('198.51.100.9'))).status, 429);
});
