import test from 'ava';
import { OpenIdClientProviders } from '../../adapters/openid/openid-client-providers.ts';
import { startOidcProvider, type OidcTestProvider, type TestAccount } from '../support/oidc-test-provider.ts';

// Guards of adapters/openid/openid-client-providers.ts against a real provider (oidc-provider in this process).

const REDIRECT = 'http://127.0.0.1:1/api/v1/auth/acme/callback';
let idp: OidcTestProvider;
let providers: OpenIdClientProviders;
let accounts = 0;

test.before(async () => {
  idp = await startOidcProvider([REDIRECT]);
  providers = new OpenIdClientProviders({
    providers: [{ name: 'acme', issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, scopes: ['openid', 'email', 'profile'] }],
    redirectUri: () => REDIRECT,
    timeoutMs: 5000,
  });
});
test.after.always(() => idp?.close());

/** A whole login of a new account with these claims: the identity the adapter makes of it. */
const login = async (claims: TestAccount) => {
  const sub = `sub-${(accounts += 1)}`;
  idp.accounts.set(sub, claims);
  const started = await providers.begin('acme');
  const back = await idp.authorize(started.url, sub);
  return { sub, result: await providers.complete('acme', back.search, started) };
};

// Pins: the email and name come from userinfo when the ID token (code flow) does not carry them.
test('email and name missing from the ID token are read from userinfo', async (t) => {
  const { sub, result } = await login({ email: 'ada@example.com', email_verified: true, name: 'Ada Lovelace' });
  t.deepEqual(result, { ok: true, identity: { subject: sub, email: 'ada@example.com', emailVerified: true, name: 'Ada Lovelace' } });
});

// Pins: a name is trimmed; a blank name is no name; no email is null, never verified.
test('a name is trimmed, a blank one is null, and a missing email is null and unverified', async (t) => {
  const padded = await login({ email: 'b@example.com', email_verified: true, name: '  Grace Hopper  ' });
  t.like(padded.result, { ok: true, identity: { name: 'Grace Hopper' } });
  const blank = await login({ email: 'c@example.com', name: '   ' });
  t.deepEqual(blank.result, { ok: true, identity: { subject: blank.sub, email: 'c@example.com', emailVerified: false, name: null } });
  const bare = await login({});
  t.deepEqual(bare.result, { ok: true, identity: { subject: bare.sub, email: null, emailVerified: false, name: null } });
});

// Pins: a callback the library refuses (a state that does not match) is an answer { ok: false, cause }, not a throw.
test('a refused callback is a failure with its cause, not an exception', async (t) => {
  idp.accounts.set('sub-state', { email: 'd@example.com' });
  const started = await providers.begin('acme');
  const back = await idp.authorize(started.url, 'sub-state');
  const result = await providers.complete('acme', back.search, { ...started, state: 'another-state' });
  t.is(result.ok, false);
  if (!result.ok) t.regex(result.cause, /state/i);
});

// Pins: only configured providers are known.
test('has() knows the configured provider only', (t) => {
  t.true(providers.has('acme'));
  t.false(providers.has('other'));
});
