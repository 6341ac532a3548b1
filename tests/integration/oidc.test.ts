import { randomUUID } from 'node:crypto';
import test from 'ava';
import { resolve, TOKENS, type Repositories } from '../../bootstrap/tokens.ts';
import { DATABASES } from '../support/databases.ts';
import { startOidcProvider, type OidcTestProvider, type TestAccount } from '../support/oidc-test-provider.ts';
import { freePort, startTestApp, type TestApp } from '../support/test-app.ts';
import type { TestClient, TestResponse } from '../support/test-client.ts';

const FRONTEND = 'http://frontend.example';

interface Setup {
  app: TestApp;
  idp: OidcTestProvider;
}

const setups = new Map<string, Setup>();

async function setUp(db: (typeof DATABASES)[number]): Promise<Setup> {
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const idp = await startOidcProvider([`${publicUrl}/api/v1/auth/acme/callback`, `${publicUrl}/api/v1/auth/twin/callback`]);
  const app = await startTestApp(db, {
    PORT: String(port),
    PUBLIC_URL: publicUrl,
    FRONTEND_URL: FRONTEND,
    ADMIN_EMAILS: 'first-admin@example.com,later-admin@example.com',
    OIDC_PROVIDERS: 'acme,twin,down',
    OIDC_ACME_ISSUER: idp.issuer,
    OIDC_ACME_CLIENT_ID: idp.clientId,
    OIDC_ACME_CLIENT_SECRET: idp.clientSecret,
    // The same provider under a second name: a login started at one must not finish at the other.
    OIDC_TWIN_ISSUER: idp.issuer,
    OIDC_TWIN_CLIENT_ID: idp.clientId,
    OIDC_TWIN_CLIENT_SECRET: idp.clientSecret,
    // A provider whose issuer nobody serves: discovery fails.
    OIDC_DOWN_ISSUER: `http://127.0.0.1:${await freePort()}`,
    OIDC_DOWN_CLIENT_ID: 'x',
    OIDC_DOWN_CLIENT_SECRET: 'y',
  });
  return { app, idp };
}

const account = (idp: OidcTestProvider, claims: TestAccount): string => {
  const sub = `sub-${randomUUID()}`;
  idp.accounts.set(sub, claims);
  return sub;
};

const errorOf = (res: TestResponse): string | null => new URL(res.headers.get('location')!).searchParams.get('error');

for (const db of DATABASES) {
  test.before(async () => {
    setups.set(db, await setUp(db));
  });
  test.after.always(async () => {
    const setup = setups.get(db);
    await setup?.app.close();
    await setup?.idp.close();
  });
  const setup = () => setups.get(db)!;
  const repos = () => setup().app.app.container.get<Repositories>(TOKENS.Repositories);

  /** GET /auth/acme: 302 to the provider with a state cookie. */
  const begin = async (client: TestClient): Promise<URL> => {
    const res = await client.get('/auth/acme');
    t302(res);
    return new URL(res.headers.get('location')!);
  };
  const t302 = (res: TestResponse) => {
    if (res.status !== 302) throw new Error(`expected 302, got ${res.status}: ${JSON.stringify(res.body)}`);
  };
  const callback = (client: TestClient, url: URL) => client.get(url.href);
  /** The whole login: our redirect, the provider's forms, the callback. */
  const signIn = async (client: TestClient, sub: string) => callback(client, await setup().idp.authorize((await begin(client)).href, sub));

  test(`${db}: a first login creates the user with the signup bonus, sets the session cookies and redirects to FRONTEND_URL; the next one finds it by subject`, async (t) => {
    const email = `new-${randomUUID()}@example.com`;
    const sub = account(setup().idp, { email, email_verified: true, name: 'Ada Lovelace' });
    const client = setup().app.client();
    const authorization = await begin(client);
    t.is(authorization.origin, setup().idp.issuer);
    t.is(authorization.searchParams.get('code_challenge_method'), 'S256');
    t.truthy(authorization.searchParams.get('code_challenge'));
    t.truthy(authorization.searchParams.get('nonce'));
    t.truthy(authorization.searchParams.get('state'));

    const res = await callback(client, await setup().idp.authorize(authorization.href, sub));
    t.is(res.status, 302);
    t.is(res.headers.get('location'), `${FRONTEND}/`);
    t.true(client.cookies.has('access_token') && client.cookies.has('refresh_token') && client.cookies.has('XSRF-TOKEN'));
    const profile = await client.get('/auth/profile');
    t.is(profile.status, 200);
    t.like(profile.body, { email, displayName: 'Ada Lovelace', role: 'user', coinBalance: 100 });
    const identities = await client.get('/auth/identities');
    t.like(identities.body, { hasPassword: false, identities: [{ provider: 'acme', email }] });
    // The refresh cookie works like a password login's.
    t.is((await client.post('/auth/refresh')).status, 200);

    const again = setup().app.client();
    t.is((await signIn(again, sub)).headers.get('location'), `${FRONTEND}/`);
    t.like((await again.get('/auth/profile')).body, { id: profile.body.id, coinBalance: 100 });
  });

  // Account pre-hijacking (ADR 053): anyone may register an address with a password, as no email is verified here. The
  // address's real owner signing in with a provider must not land in (and so feed) the registrant's account: a verified
  // email links only an account without a password. The password holder links the provider while signed in.
  test(`${db}: a verified email does not link a password account (pre-hijacking); its holder links while signed in, then signs in by subject`, async (t) => {
    const registrant = setup().app.client();
    const user = await registrant.signUp();
    const sub = account(setup().idp, { email: user.email.toUpperCase(), email_verified: true });
    const owner = setup().app.client();
    const refused = await signIn(owner, sub);
    t.is(refused.status, 302);
    t.is(refused.headers.get('location'), `${FRONTEND}/login?error=sign_in_to_link`);
    t.false(owner.cookies.has('access_token'), 'no session');
    t.is(await repos().identities.findBySubject('acme', sub), null, 'nothing linked');
    t.is((await repos().users.findByEmail(user.email))!.id, user.id, 'nobody created');
    t.like((await registrant.get('/auth/identities')).body, { hasPassword: true, identities: [] });

    // The password holder (the same person here) links it, after which the provider signs in to the account.
    const unknown = await registrant.post('/auth/nobody/link');
    t.is(unknown.status, 404, 'a link to a provider that is not configured');
    t.like(unknown.body, { statusCode: 404, error: 'Not Found' });
    const started = await registrant.post('/auth/acme/link');
    t.is((await callback(registrant, await setup().idp.authorize(started.body.url, sub))).headers.get('location'), `${FRONTEND}/?linked=acme`);
    const later = setup().app.client();
    t.is((await signIn(later, sub)).headers.get('location'), `${FRONTEND}/`);
    t.is((await later.get('/auth/profile')).body.id, user.id);
  });

  test(`${db}: a verified email links the existing account without a password (made by another provider's login)`, async (t) => {
    const email = `passwordless-${randomUUID()}@example.com`;
    const first = account(setup().idp, { email, email_verified: true });
    const creator = setup().app.client();
    t.is((await signIn(creator, first)).headers.get('location'), `${FRONTEND}/`);
    const id = (await creator.get('/auth/profile')).body.id as string;
    // Another provider vouching for the same address: here the same provider's second key stands in for it.
    await repos().identities.unlink(id, 'acme');
    const second = account(setup().idp, { email: email.toUpperCase(), email_verified: true });
    const fresh = setup().app.client();
    t.is((await signIn(fresh, second)).headers.get('location'), `${FRONTEND}/`);
    t.is((await fresh.get('/auth/profile')).body.id, id);
    t.like((await fresh.get('/auth/identities')).body, { hasPassword: false, identities: [{ provider: 'acme' }] });
    t.is((await repos().identities.findBySubject('acme', second))!.userId, id);
  });

  test(`${db}: an email the provider does not vouch for links nothing and creates nobody`, async (t) => {
    const owner = await setup().app.client().signUp();
    const stranger = `stranger-${randomUUID()}@example.com`;
    for (const [claims, email] of [
      [{ email: owner.email, email_verified: false }, owner.email],
      [{ email: stranger, email_verified: false }, stranger],
      [{ email: stranger }, stranger],
      // The string "false" some providers send is a refusal, not a truthy value.
      [{ email: owner.email, email_verified: 'false' }, owner.email],
      [{ email: stranger, email_verified: 'yes' }, stranger],
    ] as const) {
      const sub = account(setup().idp, claims);
      const client = setup().app.client();
      const res = await signIn(client, sub);
      t.is(res.status, 302);
      t.is(res.headers.get('location'), `${FRONTEND}/login?error=email_unverified`);
      t.false(client.cookies.has('access_token'));
      t.is(await repos().identities.findBySubject('acme', sub), null);
      if (email === stranger) t.is(await repos().users.findByEmail(stranger), null);
    }
    t.deepEqual(await repos().identities.listForUser(owner.id), []);
  });

  test(`${db}: emails in ADMIN_EMAILS get the admin role on an OIDC sign-up, and on an OIDC login of an existing user`, async (t) => {
    const first = setup().app.client();
    await signIn(first, account(setup().idp, { email: 'first-admin@example.com', email_verified: true }));
    t.is((await first.get('/auth/profile')).body.role, 'admin');
    // Listed after the account was made (made here without the registration route, which would promote it).
    const id = randomUUID();
    await repos().users.create({ id, email: 'later-admin@example.com', displayName: 'Later', role: 'user', passwordHash: null, createdAt: new Date() });
    const later = setup().app.client();
    await signIn(later, account(setup().idp, { email: 'later-admin@example.com', email_verified: true }));
    t.like((await later.get('/auth/profile')).body, { id, role: 'admin' });
  });

  test(`${db}: a login whose provider sends email_verified as the string "true" links the existing account without a password`, async (t) => {
    const id = randomUUID();
    const email = `string-true-${randomUUID()}@example.com`;
    await repos().users.create({ id, email, displayName: 'No password', role: 'user', passwordHash: null, createdAt: new Date() });
    const sub = account(setup().idp, { email, email_verified: 'true' });
    const client = setup().app.client();
    t.is((await signIn(client, sub)).headers.get('location'), `${FRONTEND}/`);
    t.is((await client.get('/auth/profile')).body.id, id);
  });

  // The state cookie binds a login to its browser: scripts must not read it (HttpOnly), it goes to the API only, is sent on
  // the provider's top-level redirect back (Lax) and lives as long as a pending login; the callback spends it.
  test(`${db}: the state cookie is HttpOnly, Lax and scoped to /api, on a login and on a link; every callback clears it`, async (t) => {
    const attributesOf = (res: TestResponse) => {
      const cookie = res.headers.getSetCookie().find((header) => header.startsWith('oidc_state='));
      return cookie ? cookie.split(';').slice(1).map((part) => part.trim().toLowerCase()) : null;
    };
    const client = setup().app.client();
    const started = await client.get('/auth/acme');
    const user = setup().app.client();
    await user.signUp();
    const linking = await user.post('/auth/acme/link');
    for (const res of [started, linking]) {
      const attributes = attributesOf(res);
      if (!attributes) return t.fail('no state cookie set');
      t.true(attributes.includes('httponly'), attributes.join('; '));
      t.true(attributes.includes('samesite=lax'), attributes.join('; '));
      t.true(attributes.includes('path=/api'), attributes.join('; '));
      t.true(attributes.some((attribute) => /^max-age=\d+$/.test(attribute) && Number(attribute.slice(8)) > 0), attributes.join('; '));
    }

    const sub = account(setup().idp, { email: `k-${randomUUID()}@example.com`, email_verified: true });
    t.true(client.cookies.has('oidc_state'));
    t.is((await callback(client, await setup().idp.authorize(new URL(started.headers.get('location')!).href, sub))).headers.get('location'), `${FRONTEND}/`);
    t.false(client.cookies.has('oidc_state'), 'cleared after a sign-in');
    const refused = setup().app.client();
    const back = await setup().idp.authorize((await begin(refused)).href, sub);
    back.searchParams.set('state', 'not-the-state');
    t.is(errorOf(await callback(refused, back)), 'invalid_state');
    t.false(refused.cookies.has('oidc_state'), 'cleared after a refusal');
  });

  test(`${db}: a tampered state is refused`, async (t) => {
    const sub = account(setup().idp, { email: `s-${randomUUID()}@example.com`, email_verified: true });
    const client = setup().app.client();
    const back = await setup().idp.authorize((await begin(client)).href, sub);
    back.searchParams.set('state', `${back.searchParams.get('state')}x`);
    const res = await callback(client, back);
    t.is(res.headers.get('location'), `${FRONTEND}/login?error=invalid_state`);
    t.false(client.cookies.has('access_token'));
  });

  test(`${db}: a login started at one provider cannot finish at another`, async (t) => {
    const sub = account(setup().idp, { email: `x-${randomUUID()}@example.com`, email_verified: true });
    const client = setup().app.client();
    const back = await setup().idp.authorize((await begin(client)).href, sub);
    const elsewhere = new URL(back.href.replace('/auth/acme/callback', '/auth/twin/callback'));
    t.is(errorOf(await callback(client, elsewhere)), 'invalid_state');
    t.false(client.cookies.has('access_token'));
    t.is(await repos().identities.findBySubject('twin', sub), null);
  });

  test(`${db}: a callback in a browser that did not start the login (no state cookie) is refused`, async (t) => {
    const sub = account(setup().idp, { email: `c-${randomUUID()}@example.com`, email_verified: true });
    const back = await setup().idp.authorize((await begin(setup().app.client())).href, sub);
    const victim = setup().app.client();
    const res = await callback(victim, back);
    t.is(errorOf(res), 'invalid_state');
    t.false(victim.cookies.has('access_token'));
  });

  test(`${db}: a replayed callback is refused, even with the state cookie sent again`, async (t) => {
    const sub = account(setup().idp, { email: `r-${randomUUID()}@example.com`, email_verified: true });
    const client = setup().app.client();
    const authorization = await begin(client);
    const stateCookie = client.cookies.get('oidc_state')!;
    const back = await setup().idp.authorize(authorization.href, sub);
    t.is((await callback(client, back)).headers.get('location'), `${FRONTEND}/`);
    const attacker = setup().app.client();
    attacker.cookies.set('oidc_state', stateCookie);
    const replay = await callback(attacker, back);
    t.is(errorOf(replay), 'invalid_state');
    t.false(attacker.cookies.has('access_token'));
  });

  test(`${db}: an ID token with another nonce is refused`, async (t) => {
    const sub = account(setup().idp, { email: `n-${randomUUID()}@example.com`, email_verified: true });
    const client = setup().app.client();
    const authorization = await begin(client);
    authorization.searchParams.set('nonce', 'a-nonce-this-login-never-made');
    const res = await callback(client, await setup().idp.authorize(authorization.href, sub));
    t.is(errorOf(res), 'exchange_failed');
    t.false(client.cookies.has('access_token'));
    t.is(await repos().identities.findBySubject('acme', sub), null);
  });

  test(`${db}: without the PKCE verifier, or with a challenge it does not answer, the code is not redeemed`, async (t) => {
    const email = `p-${randomUUID()}@example.com`;
    const sub = account(setup().idp, { email, email_verified: true });
    // The challenge sent to the provider is not the verifier's.
    const client = setup().app.client();
    const authorization = await begin(client);
    authorization.searchParams.set('code_challenge', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    t.is(errorOf(await callback(client, await setup().idp.authorize(authorization.href, sub))), 'exchange_failed');

    // The login's kept verifier is gone: refused before the code is spent.
    const second = setup().app.client();
    const back = await setup().idp.authorize((await begin(second)).href, sub);
    const state = back.searchParams.get('state')!;
    const cache = resolve(setup().app.app.container, TOKENS.Cache);
    const kept = JSON.parse((await cache.get(`oidc:pending:${state}`))!) as Record<string, unknown>;
    t.is(typeof kept.codeVerifier, 'string');
    delete kept.codeVerifier;
    await cache.set(`oidc:pending:${state}`, JSON.stringify(kept), 600);
    t.is(errorOf(await callback(second, back)), 'invalid_state');
    t.false(second.cookies.has('access_token'));
    t.is(await repos().users.findByEmail(email), null);
  });

  test(`${db}: a provider error and an unknown provider end at FRONTEND_URL/login with a code; GET /auth/<unknown> is 404`, async (t) => {
    const client = setup().app.client();
    const authorization = await begin(client);
    const denied = await client.get(`/auth/acme/callback?error=access_denied&state=${authorization.searchParams.get('state')}`);
    t.is(errorOf(denied), 'provider_error');
    t.is(errorOf(await client.get('/auth/nobody/callback?code=x&state=y')), 'unknown_provider');
    t.is((await client.get('/auth/down')).headers.get('location'), `${FRONTEND}/login?error=provider_unavailable`);
    const unknown = await client.get('/auth/nobody');
    t.is(unknown.status, 404);
    t.is(unknown.body.statusCode, 404);
  });

  test(`${db}: a signed-in password user links a provider (any email), then signs in with it; the identity cannot be linked twice`, async (t) => {
    const client = setup().app.client();
    const user = await client.signUp();
    const sub = account(setup().idp, { email: `other-${randomUUID()}@example.com`, email_verified: false });
    t.is((await setup().app.client().post('/auth/acme/link')).status, 401);
    const started = await client.post('/auth/acme/link');
    t.is(started.status, 200);
    const back = await setup().idp.authorize(started.body.url, sub);
    const linked = await callback(client, back);
    t.is(linked.headers.get('location'), `${FRONTEND}/?linked=acme`);
    t.like((await client.get('/auth/identities')).body, { hasPassword: true, identities: [{ provider: 'acme' }] });

    const later = setup().app.client();
    t.is((await signIn(later, sub)).headers.get('location'), `${FRONTEND}/`);
    t.is((await later.get('/auth/profile')).body.id, user.id);

    const someoneElse = setup().app.client();
    await someoneElse.signUp();
    const again = await someoneElse.post('/auth/acme/link');
    t.is(errorOf(await callback(someoneElse, await setup().idp.authorize(again.body.url, sub))), 'identity_in_use');
    t.is((await repos().identities.findBySubject('acme', sub))!.userId, user.id);
  });

  test(`${db}: an identity is removed, except the last way to sign in of a user without a password`, async (t) => {
    const sub = account(setup().idp, { email: `u-${randomUUID()}@example.com`, email_verified: true });
    const oidcOnly = setup().app.client();
    await signIn(oidcOnly, sub);
    const refused = await oidcOnly.delete('/auth/identities/acme');
    t.is(refused.status, 409);
    t.is(refused.body.statusCode, 409);
    t.is((await oidcOnly.get('/auth/identities')).body.identities.length, 1);

    const withPassword = setup().app.client();
    const user = await withPassword.signUp();
    const linkSub = account(setup().idp, { email: user.email, email_verified: true });
    const started = await withPassword.post('/auth/acme/link');
    t.is((await callback(withPassword, await setup().idp.authorize(started.body.url, linkSub))).headers.get('location'), `${FRONTEND}/?linked=acme`);
    t.is((await withPassword.delete('/auth/identities/acme')).status, 204);
    t.deepEqual((await withPassword.get('/auth/identities')).body.identities, []);
    t.is((await withPassword.delete('/auth/identities/acme')).status, 404);
    t.is(await repos().identities.findBySubject('acme', linkSub), null);
  });
  // Pins the state check against login CSRF: a browser that started its own login does not accept another login's state.
  test(`${db}: a callback carrying another login's state is refused in a browser that started a login of its own`, async (t) => {
    const attackerSub = account(setup().idp, { email: `attacker-${randomUUID()}@example.com`, email_verified: true });
    const attacker = setup().app.client();
    // The attacker's own login, stopped before its callback: a state and a code the server would accept.
    const planted = await setup().idp.authorize((await begin(attacker)).href, attackerSub);
    const victim = setup().app.client();
    await begin(victim);
    t.truthy(victim.cookies.get('oidc_state'));
    const res = await callback(victim, planted);
    t.is(errorOf(res), 'invalid_state');
    t.false(victim.cookies.has('access_token'), 'the victim is not signed in to the account of the attacker');
    t.is(await repos().identities.findBySubject('acme', attackerSub), null, 'nothing was created for the planted login');
  });

  // Pins the email check of a provider-vouched email: a malformed one creates nobody.
  test(`${db}: a verified email that is not an email address creates nobody`, async (t) => {
    const sub = account(setup().idp, { email: `no-at-sign-${randomUUID()}`, email_verified: true });
    const client = setup().app.client();
    const res = await signIn(client, sub);
    t.is(errorOf(res), 'email_unverified');
    t.false(client.cookies.has('access_token'));
    t.is(await repos().identities.findBySubject('acme', sub), null);
  });

  // Pins the refusal when the user with this email already has another identity at the provider: no sign-in as that user.
  test(`${db}: a second identity at a provider with the email of a user already linked there does not sign in as that user`, async (t) => {
    const email = `linked-${randomUUID()}@example.com`;
    const first = account(setup().idp, { email, email_verified: true });
    const owner = setup().app.client();
    t.is((await signIn(owner, first)).headers.get('location'), `${FRONTEND}/`);
    const user = (await owner.get('/auth/profile')).body as { id: string };
    const second = account(setup().idp, { email, email_verified: true });
    const intruder = setup().app.client();
    const res = await signIn(intruder, second);
    t.is(errorOf(res), 'identity_in_use');
    t.false(intruder.cookies.has('access_token'), 'no session for the user with that email');
    t.is(await repos().identities.findBySubject('acme', second), null);
    t.deepEqual((await repos().identities.listForUser(user.id)).map((identity) => identity.subject), [first]);
  });

  // Pins the unlink rule's count and the idempotent relink: a passwordless user with two identities keeps one.
  test(`${db}: a user without a password links a second provider (twice, harmlessly), removes one identity, not the last`, async (t) => {
    const sub = account(setup().idp, { email: `two-${randomUUID()}@example.com`, email_verified: true });
    const client = setup().app.client();
    await signIn(client, sub);
    const linkTwin = async () => {
      const started = await client.post('/auth/twin/link');
      t.is(started.status, 200);
      return callback(client, await setup().idp.authorize(started.body.url, sub));
    };
    t.is((await linkTwin()).headers.get('location'), `${FRONTEND}/?linked=twin`);
    t.is((await linkTwin()).headers.get('location'), `${FRONTEND}/?linked=twin`, 'linking the identity it already has is no error');
    t.deepEqual((await client.get('/auth/identities')).body.identities.map((identity: { provider: string }) => identity.provider).sort(), ['acme', 'twin']);
    t.is((await client.delete('/auth/identities/twin')).status, 204);
    t.is((await client.delete('/auth/identities/acme')).status, 409);
    t.deepEqual((await client.get('/auth/identities')).body.identities.map((identity: { provider: string }) => identity.provider), ['acme']);
  });
}
