/**
 * The OpenID Connect adapter when the ID token and userinfo disagree. The shared test provider
 * (tests/support/oidc-test-provider.ts) sends the same claims to both, so which one wins is never seen there; this
 * file runs oidc-provider with per-use claims (`claims(use)`: 'id_token' or 'userinfo') and with scope claims allowed
 * into the ID token (conformIdTokenClaims: false).
 *
 * Pinned (adapters/openid/openid-client-providers.ts, OpenID Connect Core 3.1.3.7 and 5.3.2): the identity is the
 * ID token's (validated, signed for this client and nonce); userinfo is read only when the ID token carries no email,
 * and only fills in what the ID token lacks; a userinfo response about another subject (its `sub` differs from the ID
 * token's) is refused, not merged.
 */
import type { Server } from 'node:http';
import test from 'ava';
import Provider from 'oidc-provider';
import { OpenIdClientProviders } from '../../adapters/openid/openid-client-providers.ts';
import { authorizeAt } from '../support/oidc-test-provider.ts';
import { freePort } from '../support/test-app.ts';

const REDIRECT = 'http://127.0.0.1:1/api/v1/auth/acme/callback';

type Claims = Record<string, unknown>;
/** Per account: the claims the ID token carries and those userinfo answers (each without `sub` unless it should differ). */
const accounts = new Map<string, { idToken: Claims; userinfo: Claims }>();
let issuer = '';
let server: Server;
let providers: OpenIdClientProviders;

test.before(async () => {
  const port = await freePort();
  issuer = `http://127.0.0.1:${port}`;
  const provider = new Provider(issuer, {
    clients: [{ client_id: 'unexamined', client_secret: 'a-client-secret-for-the-unexamined-audit', redirect_uris: [REDIRECT], grant_types: ['authorization_code'], response_types: ['code'] }],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: true } },
    cookies: { keys: ['unexamined-audit-cookie-key'] },
    async findAccount(_ctx, sub) {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return { accountId: sub, claims: async (use?: string) => ({ sub, ...(use === 'id_token' ? account.idToken : account.userinfo) }) };
    },
  });
  // oidc-provider always answers userinfo with the account's own sub: a provider (or a tampered answer) that sends
  // another subject is played by rewriting the body on its way out.
  (provider as unknown as { use(middleware: (ctx: { path: string; body: unknown }, next: () => Promise<void>) => Promise<void>): void }).use(async (ctx, next) => {
    await next();
    const body = ctx.body as Claims | undefined;
    const other = ctx.path === '/me' && body && typeof body.sub === 'string' ? accounts.get(body.sub)?.userinfo.sub : undefined;
    if (other !== undefined) ctx.body = { ...body, sub: other };
  });
  server = await new Promise((done) => {
    const listening = provider.listen(port, '127.0.0.1', () => done(listening));
  });
  providers = new OpenIdClientProviders({
    providers: [{ name: 'acme', issuer, clientId: 'unexamined', clientSecret: 'a-client-secret-for-the-unexamined-audit', scopes: ['openid', 'email', 'profile'] }],
    redirectUri: () => REDIRECT,
    timeoutMs: 5000,
  });
});
test.after.always(() => new Promise<void>((done) => (server ? server.close(() => done()) : done())));

/** Plays the browser at the provider (devInteractions: login, then consent) and returns the redirect back to us. */
const authorize = (authorizationUrl: string, accountId: string) => authorizeAt(issuer, [REDIRECT], authorizationUrl, accountId);

let count = 0;
const login = async (idToken: Claims, userinfo: Claims) => {
  const sub = `unexamined-${(count += 1)}`;
  accounts.set(sub, { idToken, userinfo });
  const started = await providers.begin('acme');
  const back = await authorize(started.url, sub);
  return { sub, result: await providers.complete('acme', back.search, started) };
};

test('an ID token without email: userinfo gives the email, but what the ID token says wins', async (t) => {
  const { sub, result } = await login(
    { name: 'Token Name', email_verified: false },
    { email: 'info@example.com', email_verified: true, name: 'Userinfo Name' },
  );
  t.deepEqual(result, { ok: true, identity: { subject: sub, email: 'info@example.com', emailVerified: false, name: 'Token Name' } });
});

test('an ID token with an email: userinfo is not read, and its different email and name are not used', async (t) => {
  const { sub, result } = await login(
    { email: 'token@example.com', email_verified: true },
    { email: 'info@example.com', email_verified: true, name: 'Userinfo Name' },
  );
  t.deepEqual(result, { ok: true, identity: { subject: sub, email: 'token@example.com', emailVerified: true, name: null } });
});

test("a userinfo answer about another subject is refused (OIDC Core 5.3.2), never merged into this login", async (t) => {
  const { result } = await login({ name: 'Token Name' }, { sub: 'someone-else', email: 'victim@example.com', email_verified: true });
  t.is(result.ok, false, JSON.stringify(result));
  if (!result.ok) t.regex(result.cause, /"sub"/);
});
