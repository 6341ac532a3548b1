import { fail, ok, type Fail, type Result } from '../../domain/result.ts';
import { DISPLAY_NAME_MAX, isValidEmail, normalizeEmail, type User } from '../../domain/user.ts';
import type { IdentityRepository } from '../../ports/identity-repository.port.ts';
import type { ExternalIdentity, OidcProviders } from '../../ports/oidc-providers.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import type { UserRepository } from '../../ports/user-repository.port.ts';
import { createAccount } from './create-account.service.ts';
import type { PendingLogin, PendingLogins } from './oidc-pending-logins.service.ts';
import { issueSession, type IssuedSession, type SessionDeps } from './session-tokens.service.ts';

/** Why a callback was refused: the code the browser sees in `?error=` (the cause goes to the log). */
export type OidcErrorCode =
  | 'unknown_provider'
  | 'provider_error'
  | 'invalid_state'
  | 'exchange_failed'
  | 'email_unverified'
  | 'identity_in_use'
  | 'account_conflict'
  | 'sign_in_to_link';

export type OidcFailure = Fail<OidcErrorCode> & { cause: string };

export type OidcOutcome = { kind: 'signed-in'; session: IssuedSession; created: boolean } | { kind: 'linked'; provider: string };

export interface CompleteOidcLoginDeps extends SessionDeps {
  providers: OidcProviders;
  pending: PendingLogins;
  users: UserRepository;
  identities: IdentityRepository;
  uow: UnitOfWork;
  adminEmails: readonly string[];
  signupBonusCoins: number;
}

export interface CompleteOidcLoginInput {
  provider: string;
  /** The callback's query string, as received. */
  query: string;
  /** The state this browser was given when it started (its cookie); a callback from another browser has none. */
  browserState: string | undefined;
}

const refuse = (code: OidcErrorCode, cause: string): OidcFailure => ({ ...fail(code, 'Sign-in failed'), cause });

/**
 * The callback of an OpenID Connect login: checks state (bound to the browser, single use), redeems the
 * code with the PKCE verifier, checks the ID token's nonce, then signs in the user linked to
 * (provider, subject), else the user with the provider-verified email (linking it) when that user has no password
 * (ADR 053), else a new user with the signup bonus. An email the provider does not vouch for never links or creates
 * anything (ADR 025).
 */
export class CompleteOidcLogin {
  constructor(private readonly deps: CompleteOidcLoginDeps) {}

  async execute(input: CompleteOidcLoginInput): Promise<Result<OidcOutcome, OidcErrorCode> | OidcFailure> {
    const { providers, pending } = this.deps;
    if (!providers.has(input.provider)) return refuse('unknown_provider', `no provider "${input.provider}" is configured`);
    const params = new URLSearchParams(input.query);
    const state = params.get('state') ?? '';
    if (!state || !input.browserState || state !== input.browserState) {
      return refuse('invalid_state', input.browserState ? 'the state does not match the one given to this browser' : 'this browser started no login (no state cookie)');
    }
    const login = await pending.take(state);
    if (!login) return refuse('invalid_state', 'the state is unknown, expired, already used or incomplete');
    if (login.provider !== input.provider) return refuse('invalid_state', `the state belongs to a login at ${login.provider}`);
    if (params.has('error')) return refuse('provider_error', `the provider answered ${params.get('error')}: ${params.get('error_description') ?? ''}`.trim());

    const exchanged = await providers.complete(input.provider, input.query, login);
    if (!exchanged.ok) return refuse('exchange_failed', exchanged.cause);
    return login.linkUserId ? this.link(login, login.linkUserId, exchanged.identity) : this.signIn(login, exchanged.identity);
  }

  private async link(login: PendingLogin, userId: string, identity: ExternalIdentity): Promise<Result<OidcOutcome, OidcErrorCode> | OidcFailure> {
    const { identities, clock } = this.deps;
    const existing = await identities.findBySubject(login.provider, identity.subject);
    if (existing?.userId === userId) return ok({ kind: 'linked', provider: login.provider });
    const linked = await identities.link({ userId, provider: login.provider, subject: identity.subject, email: identity.email, createdAt: clock.now() });
    // Refused by the store when the identity belongs to another user or the user has one at this provider.
    if (!linked) return refuse('identity_in_use', `this ${login.provider} identity is linked to another user, or the user has another one there`);
    return ok({ kind: 'linked', provider: login.provider });
  }

  private async signIn(login: PendingLogin, identity: ExternalIdentity): Promise<Result<OidcOutcome, OidcErrorCode> | OidcFailure> {
    const { users, identities, clock } = this.deps;
    const linked = await identities.findBySubject(login.provider, identity.subject);
    if (linked) {
      const user = await users.findById(linked.userId);
      if (!user) return refuse('account_conflict', 'the linked user no longer exists');
      return this.session(user, false);
    }
    const email = identity.email === null ? null : normalizeEmail(identity.email);
    if (!email || !isValidEmail(email) || !identity.emailVerified) {
      return refuse('email_unverified', `the provider did not vouch for an email (email ${email ? 'present' : 'absent'}, email_verified ${identity.emailVerified})`);
    }
    const link = { provider: login.provider, subject: identity.subject, email, createdAt: clock.now() };
    const owner = await users.findByEmail(email);
    if (owner) {
      // A password account's email was never proven: anyone may register an address and set its password. Linking
      // the address's real owner into it would hand the registrant an account the owner then uses (pre-hijacking).
      // Its holder signs in with the password and links the provider (POST /auth/{provider}/link).
      if (owner.passwordHash !== null) return refuse('sign_in_to_link', 'the account with this email has a password, which no provider vouched for: its holder links the provider while signed in');
      if (!(await identities.link({ ...link, userId: owner.id }))) return refuse('identity_in_use', `the user with this email has another ${login.provider} identity linked`);
      const { passwordHash: _hidden, ...user } = owner;
      return this.session(user, false);
    }
    const created = await this.create(identity, email, link);
    if (!created) return refuse('account_conflict', 'the email was taken while the account was being created');
    return this.session(created, true);
  }

  private async create(identity: ExternalIdentity, email: string, link: { provider: string; subject: string; email: string; createdAt: Date }): Promise<User | null> {
    const { uow, ids, adminEmails, signupBonusCoins, users } = this.deps;
    const id = ids.newId();
    const displayName = (identity.name?.trim() || email.split('@')[0]!).slice(0, DISPLAY_NAME_MAX);
    const role = adminEmails.includes(email) ? 'admin' : 'user';
    const created = await uow.run(async (tx) => {
      if (!(await createAccount(tx, { ids, signupBonusCoins }, { id, email, displayName, role, passwordHash: null, createdAt: link.createdAt }))) return false;
      if (!(await tx.identities.link({ ...link, userId: id }))) throw new Error('a fresh identity could not be linked to a fresh user');
      return true;
    });
    return created ? users.findById(id) : null;
  }

  private async session(user: User, created: boolean): Promise<Result<OidcOutcome, OidcErrorCode>> {
    let current = user;
    if (this.deps.adminEmails.includes(user.email) && user.role !== 'admin') {
      await this.deps.users.setRole(user.id, 'admin', this.deps.clock.now());
      current = { ...user, role: 'admin' };
    }
    const session = await issueSession(this.deps, this.deps.sessions, current, this.deps.ids.newId());
    return ok({ kind: 'signed-in', session, created });
  }
}
