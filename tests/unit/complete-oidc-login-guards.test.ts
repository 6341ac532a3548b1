/**
 * The guards of an OpenID Connect callback (CompleteOidcLogin) on the in-memory adapters, with a provider
 * double whose code exchange answers what each test says: which refusal each check gives, which user is
 * signed in, which identity row exists. The real provider flow (state cookie, PKCE, nonce) is in
 * tests/integration/oidc.test.ts.
 */
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { JwtTokenIssuer } from '../../adapters/crypto/jwt-token-issuer.ts';
import { MemoryCache } from '../../adapters/memory/memory-cache.ts';
import { MemoryStore } from '../../adapters/memory/memory-store.ts';
import { MemoryUnitOfWork } from '../../adapters/memory/memory-unit-of-work.ts';
import type { IdentityRepository } from '../../core/ports/identity-repository.port.ts';
import type { CodeExchange, ExternalIdentity, OidcProviders } from '../../core/ports/oidc-providers.port.ts';
import type { UserRepository } from '../../core/ports/user-repository.port.ts';
import { CompleteOidcLogin, type CompleteOidcLoginDeps } from '../../core/use-cases/auth/complete-oidc-login.use-case.ts';
import { PendingLogins } from '../../core/use-cases/auth/oidc-pending-logins.service.ts';
import { StartOidcLogin } from '../../core/use-cases/auth/start-oidc-login.use-case.ts';

const NOW = new Date('2031-03-01T09:00:00.000Z');

/** A provider double: `answer` is what the next code exchange returns; `exchanges` counts the exchanges asked. */
function providersDouble(names: string[]) {
  const double: { answer: CodeExchange; exchanges: { provider: string; query: string; codeVerifier: string }[]; providers: OidcProviders } = {
    answer: { ok: false, cause: 'no answer set' },
    exchanges: [],
    providers: {
      has: (provider) => names.includes(provider),
      begin: async (provider) => {
        const state = randomUUID();
        return { state, nonce: randomUUID(), codeVerifier: randomUUID(), url: `https://idp.example/${provider}/authorize?state=${state}` };
      },
      complete: async (provider, query, expected) => {
        double.exchanges.push({ provider, query, codeVerifier: expected.codeVerifier });
        return double.answer;
      },
    },
  };
  return double;
}

async function world(options: { users?: (real: UserRepository) => UserRepository; identities?: (real: IdentityRepository) => IdentityRepository } = {}) {
  const store = new MemoryStore();
  const uow = new MemoryUnitOfWork(store);
  const repos = uow.autocommit;
  const idp = providersDouble(['acme', 'twin']);
  const pending = new PendingLogins(new MemoryCache());
  const deps: CompleteOidcLoginDeps = {
    providers: idp.providers,
    pending,
    users: options.users ? options.users(repos.users) : repos.users,
    identities: options.identities ? options.identities(repos.identities) : repos.identities,
    uow,
    sessions: repos.sessions,
    tokens: new JwtTokenIssuer({ secret: 's'.repeat(40), issuer: 'i', audience: 'a', accessTokenTtlSeconds: 60 }),
    ids: { newId: () => randomUUID() },
    clock: { now: () => NOW },
    refreshTokenTtlSeconds: 3600,
    adminEmails: ['boss@example.com'],
    signupBonusCoins: 100,
  };
  const complete = new CompleteOidcLogin(deps);
  const start = new StartOidcLogin({ providers: idp.providers, pending });
  /** A started login's state (the browser holds it as its cookie). */
  const begin = async (provider = 'acme', linkUserId?: string) => {
    const started = await start.execute({ provider, ...(linkUserId ? { linkUserId } : {}) });
    if (!started.ok) throw new Error(started.message);
    return started.value.state;
  };
  /** The provider's redirect back, in the browser that started the login. */
  const callback = (state: string, provider = 'acme') => complete.execute({ provider, query: `code=the-code&state=${encodeURIComponent(state)}`, browserState: state });
  const addUser = async (email: string, passwordHash: string | null = null) => {
    const id = randomUUID();
    await repos.users.create({ id, email, displayName: 'Someone', role: 'user', passwordHash, createdAt: NOW });
    return id;
  };
  const verified = (email: string | null, extra: Partial<ExternalIdentity> = {}): CodeExchange => ({ ok: true, identity: { subject: `sub-${randomUUID()}`, email, emailVerified: true, name: null, ...extra } });
  return { store, repos, idp, begin, callback, complete, addUser, verified };
}

type World = Awaited<ReturnType<typeof world>>;
const sessionsOf = (w: World) => w.store.sessions.size;

test('an unknown provider is refused as such, before its state is spent or any code exchanged', async (t) => {
  const w = await world();
  const state = await w.begin('acme');
  w.idp.answer = w.verified(`u-${randomUUID()}@example.com`);
  t.like(await w.callback(state, 'nobody'), { ok: false, code: 'unknown_provider', message: 'Sign-in failed' });
  t.is(w.idp.exchanges.length, 0);
  // The state is still good at its own provider.
  t.like(await w.callback(state, 'acme'), { ok: true, value: { kind: 'signed-in', created: true } });
});

test('a state nobody issued (or already spent) is refused as invalid_state; nothing is exchanged', async (t) => {
  const w = await world();
  t.like(await w.callback('a-state-never-issued'), { ok: false, code: 'invalid_state' });
  const state = await w.begin();
  w.idp.answer = w.verified(`u-${randomUUID()}@example.com`);
  t.true((await w.callback(state)).ok);
  t.like(await w.callback(state), { ok: false, code: 'invalid_state' });
  t.is(w.idp.exchanges.length, 1);
  t.is(sessionsOf(w), 1);
});

test('a failed code exchange is exchange_failed: nobody is created, linked or signed in', async (t) => {
  const w = await world();
  const state = await w.begin();
  w.idp.answer = { ok: false, cause: 'id token nonce mismatch' };
  t.like(await w.callback(state), { ok: false, code: 'exchange_failed', cause: 'id token nonce mismatch' });
  t.is(w.store.users.size, 0);
  t.is(w.store.table('user_identities').size, 0);
  t.is(sessionsOf(w), 0);
});

test('a login started by a signed-in user links the identity to that user whatever its email, and signs nobody in', async (t) => {
  const w = await world();
  const userId = await w.addUser(`linker-${randomUUID()}@example.com`, 'hash');
  const state = await w.begin('acme', userId);
  const answer = w.verified(`elsewhere-${randomUUID()}@example.com`, { emailVerified: false });
  w.idp.answer = answer;
  t.deepEqual(await w.callback(state), { ok: true, value: { kind: 'linked', provider: 'acme' } });
  t.like(await w.repos.identities.findBySubject('acme', answer.ok ? answer.identity.subject : ''), { userId, provider: 'acme' });
  t.is(w.store.users.size, 1);
  t.is(sessionsOf(w), 0);
});

test('an identity linked by subject signs in its user, even when the provider no longer vouches for an email', async (t) => {
  const w = await world();
  const userId = await w.addUser(`owner-${randomUUID()}@example.com`);
  const subject = `sub-${randomUUID()}`;
  await w.repos.identities.link({ userId, provider: 'acme', subject, email: null, createdAt: NOW });
  w.idp.answer = { ok: true, identity: { subject, email: null, emailVerified: false, name: null } };
  const result = await w.callback(await w.begin());
  t.like(result, { ok: true, value: { kind: 'signed-in', created: false, session: { user: { id: userId } } } });
  t.is(sessionsOf(w), 1);
});

test('an identity whose user no longer exists is account_conflict, with no session', async (t) => {
  const w = await world();
  const userId = await w.addUser(`gone-${randomUUID()}@example.com`);
  const subject = `sub-${randomUUID()}`;
  await w.repos.identities.link({ userId, provider: 'acme', subject, email: null, createdAt: NOW });
  w.store.users.delete(userId);
  w.idp.answer = { ok: true, identity: { subject, email: `gone-again-${randomUUID()}@example.com`, emailVerified: true, name: null } };
  t.like(await w.callback(await w.begin()), { ok: false, code: 'account_conflict', cause: 'the linked user no longer exists' });
  t.is(w.store.users.size, 0);
  t.is(sessionsOf(w), 0);
});

test('a vouched-for login without any email is email_unverified and creates nobody', async (t) => {
  const w = await world();
  w.idp.answer = w.verified(null);
  t.like(await w.callback(await w.begin()), { ok: false, code: 'email_unverified' });
  t.is(w.store.users.size, 0);
  t.is(w.store.table('user_identities').size, 0);
});

// Pre-hijacking (ADR 053): a verified email does not link (nor sign in to) an account that has a password, whoever
// set it; nothing is linked or created, and the callback says sign_in_to_link.
test('a verified email of an account with a password is sign_in_to_link: nothing linked, created or signed in', async (t) => {
  const w = await world();
  const email = `registered-${randomUUID()}@example.com`;
  const userId = await w.addUser(email, 'scrypt$someone-set-it');
  const answer = w.verified(email);
  w.idp.answer = answer;
  const result = await w.callback(await w.begin());
  t.like(result, { ok: false, code: 'sign_in_to_link' });
  t.is(await w.repos.identities.findBySubject('acme', answer.ok ? answer.identity.subject : ''), null);
  t.deepEqual(await w.repos.identities.listForUser(userId), []);
  t.is(w.store.users.size, 1);
});

test("the provider's email is matched trimmed and case-insensitively, and the owner's password hash is not in the session", async (t) => {
  const w = await world();
  const local = `ada-${randomUUID()}`;
  // Without a password (a password account is not linked by email: next test); its hash field is there, null.
  const userId = await w.addUser(`${local}@example.com`);
  const answer = w.verified(`  ${local.toUpperCase()}@Example.COM `);
  w.idp.answer = answer;
  const result = await w.callback(await w.begin());
  t.like(result, { ok: true, value: { kind: 'signed-in', created: false, session: { user: { id: userId, email: `${local}@example.com` } } } });
  if (result.ok && result.value.kind === 'signed-in') t.false('passwordHash' in result.value.session.user, 'no password hash in the session');
  t.like(await w.repos.identities.findBySubject('acme', answer.ok ? answer.identity.subject : ''), { userId, email: `${local}@example.com` });
  t.is(w.store.users.size, 1);
});

test('a new account takes the trimmed name (else the email local part), at most 64 characters, the role user, and the signup bonus', async (t) => {
  const w = await world();
  const cases: [string | null, string][] = [
    ['  Grace Hopper ', 'Grace Hopper'],
    ['   ', 'blank-name'],
    [null, 'no-name'],
    ['n'.repeat(100), 'n'.repeat(64)],
  ];
  for (const [name, displayName] of cases) {
    const email = `${displayName === 'blank-name' || displayName === 'no-name' ? displayName : `named-${randomUUID()}`}@example.com`;
    w.idp.answer = w.verified(email, { name });
    const result = await w.callback(await w.begin());
    t.like(result, { ok: true, value: { kind: 'signed-in', created: true, session: { user: { email, displayName, role: 'user', coinBalance: 100 } } } }, JSON.stringify(name));
    t.like(await w.repos.users.findByEmail(email), { displayName, role: 'user', coinBalance: 100 });
  }
});

test('an email in ADMIN_EMAILS signs up as an administrator', async (t) => {
  const w = await world();
  w.idp.answer = w.verified('Boss@Example.com');
  t.like(await w.callback(await w.begin()), { ok: true, value: { kind: 'signed-in', created: true, session: { user: { email: 'boss@example.com', role: 'admin' } } } });
  t.like(await w.repos.users.findByEmail('boss@example.com'), { role: 'admin' });
});

test('an email taken by another sign-up between the lookup and the creation is account_conflict: no identity, no session', async (t) => {
  // The other request's account appears after this one looked the email up.
  const w = await world({ users: (real) => ({ ...bind(real), findByEmail: async () => null }) });
  const email = `race-${randomUUID()}@example.com`;
  const theirs = await w.addUser(email);
  const answer = w.verified(email);
  w.idp.answer = answer;
  t.like(await w.callback(await w.begin()), { ok: false, code: 'account_conflict', cause: 'the email was taken while the account was being created' });
  t.is(await w.repos.identities.findBySubject('acme', answer.ok ? answer.identity.subject : ''), null);
  t.is(w.store.users.size, 1);
  t.deepEqual([...w.store.users.keys()], [theirs]);
  t.is(sessionsOf(w), 0);
});

test('a fresh identity the store will not link (taken meanwhile) undoes the new account instead of signing in without it', async (t) => {
  // The other request linked this subject after this one looked it up.
  const w = await world({ identities: (real) => ({ ...bind(real), findBySubject: async () => null }) });
  const subject = `sub-${randomUUID()}`;
  const first = await w.addUser(`first-${randomUUID()}@example.com`);
  await w.repos.identities.link({ userId: first, provider: 'acme', subject, email: null, createdAt: NOW });
  const email = `second-${randomUUID()}@example.com`;
  w.idp.answer = { ok: true, identity: { subject, email, emailVerified: true, name: null } };
  await t.throwsAsync(w.callback(await w.begin()), { message: 'a fresh identity could not be linked to a fresh user' });
  t.is(await w.repos.users.findByEmail(email), null, 'the account was rolled back');
  t.like(await w.repos.identities.findBySubject('acme', subject), { userId: first });
  t.is(sessionsOf(w), 0);
});

/** The repository's methods bound to it, to spread into a double that replaces one of them. */
function bind<T extends object>(repository: T): T {
  const bound: Record<string, unknown> = {};
  let proto: object | null = repository;
  while (proto && proto !== Object.prototype) {
    for (const key of Object.getOwnPropertyNames(proto)) {
      const value = (repository as Record<string, unknown>)[key];
      if (key !== 'constructor' && typeof value === 'function' && !(key in bound)) bound[key] = (value as (...a: unknown[]) => unknown).bind(repository);
    }
    proto = Object.getPrototypeOf(proto) as object | null;
  }
  return bound as T;
}
