import { entriesOn, type Mutation } from '../mutation.ts';

/** Guards of authentication and sessions; every name starts with "auth:" so `npm run mutation -- auth:` runs just these. */
export const MUTATIONS: Mutation[] = [
  {
    name: 'auth: an expired refresh token still rotates',
    file: 'core/use-cases/auth/refresh-session.use-case.ts',
    find: '    if (session.expiresAt.getTime() <= now.getTime()) return unauthenticated;\n',
    replace: '',
    tests: ['tests/integration/session-guards.test.ts'],
  },
  {
    name: "auth: in-band socket auth accepts another user's token",
    file: 'adapters/ws/ws-gateway.ts',
    find: 'if (!claims || claims.userId !== client.userId) return',
    replace: 'if (!claims) return',
    tests: ['tests/integration/session-guards.test.ts'],
  },
  {
    name: 'auth: a revoked session closes every socket of its user, not only its own',
    file: 'adapters/ws/ws-gateway.ts',
    find: '      if (client.sessionId === notice.sessionId) {',
    replace: '      if (client.userId === notice.userId) {',
    tests: ['tests/integration/session-guards.test.ts'],
  },
  {
    name: 'auth: an access token without a session id (sid) is judged by its user alone',
    file: 'core/use-cases/auth/authenticate.use-case.ts',
    find: 'if (!claims || claims.sessionId === null) return null;',
    replace: 'if (!claims) return null;',
    tests: ['tests/integration/session-guards.test.ts'],
  },
  {
    name: "auth: logout with another login's refresh cookie leaves the access token's login alive",
    file: 'core/use-cases/auth/logout-user.use-case.ts',
    find: `    await revocations.revokeFamily(input.userId, input.sessionId);
    if (session && session.userId === input.userId && session.familyId !== input.sessionId) {
      await revocations.revokeFamily(input.userId, session.familyId);
    }
`,
    replace: '    await revocations.revokeFamily(input.userId, session && session.userId === input.userId ? session.familyId : input.sessionId);\n',
    tests: ['tests/integration/session-guards.test.ts'],
  },
  {
    name: 'XSRF token: the pool hands out the same bytes again',
    file: 'adapters/http/cookies.ts',
    find: '  xsrfPoolOffset += XSRF_TOKEN_BYTES;\n',
    replace: '',
    tests: ['tests/unit/xsrf-token.test.ts'],
  },
  {
    name: 'XSRF token: the pool is never refilled',
    file: 'adapters/http/cookies.ts',
    find: '  if (xsrfPoolOffset + XSRF_TOKEN_BYTES > xsrfPool.length) {',
    replace: '  if (xsrfPool.length === 0) {',
    tests: ['tests/unit/xsrf-token.test.ts'],
  },
  // Login and sign-up limits (ADR 020).
  {
    name: 'auth: limits: one attempt past a login or sign-up limit is let through',
    file: 'core/use-cases/auth/attempt-limits.service.ts',
    find: '    if (hit.count > limit.max) {',
    replace: '    if (hit.count > limit.max + 1) {',
    tests: ['tests/unit/attempt-limits.test.ts', 'tests/integration/abuse.test.ts'],
  },
  {
    name: 'auth: limits: a refused attempt keeps the hits it took on the limits before the full one',
    file: 'core/use-cases/auth/attempt-limits.service.ts',
    find: '      await release();\n      return { ok: false',
    replace: '      return { ok: false',
    tests: ['tests/unit/attempt-limits.test.ts'],
  },
  {
    name: 'auth: limits: failed logins for one account from one address are not limited',
    file: 'core/use-cases/auth/login-user.use-case.ts',
    find: 'max: limits.perAccountAndAddress }',
    replace: 'max: Number.MAX_SAFE_INTEGER }',
    tests: ['tests/integration/abuse.test.ts'],
  },
  {
    name: 'auth: limits: failed logins from one address over many accounts are not limited',
    file: 'core/use-cases/auth/login-user.use-case.ts',
    find: 'max: limits.perAddress }',
    replace: 'max: Number.MAX_SAFE_INTEGER }',
    tests: ['tests/integration/abuse.test.ts'],
  },
  {
    name: 'auth: limits: failed logins for one account from many addresses are not limited',
    file: 'core/use-cases/auth/login-user.use-case.ts',
    find: 'max: limits.perAccount }',
    replace: 'max: Number.MAX_SAFE_INTEGER }',
    tests: ['tests/integration/abuse.test.ts'],
  },
  {
    name: "auth: limits: the account-and-address limit ignores the address (an attacker locks the owner out everywhere)",
    file: 'core/use-cases/auth/login-user.use-case.ts',
    find: 'key: `login:account-address:${email}|${address}`',
    replace: 'key: `login:account-address:${email}`',
    tests: ['tests/integration/abuse.test.ts'],
  },
  {
    name: 'auth: limits: a rate-limited login still checks the password',
    file: 'core/use-cases/auth/login-user.use-case.ts',
    find: "    if (!reserved.ok) return { ...fail('AUTH.RATE_LIMITED', 'Too many failed logins; try again later'), retryAfterSeconds: reserved.retryAfterSeconds };\n",
    replace: '',
    tests: ['tests/integration/abuse.test.ts'],
  },
  {
    name: 'auth: limits: a successful login counts as a failure',
    file: 'core/use-cases/auth/login-user.use-case.ts',
    find: '    await reserved.release();\n\n    let current = user;',
    replace: '\n    let current = user;',
    tests: ['tests/integration/abuse.test.ts'],
  },
  {
    name: 'auth: routes: a wrong password logs in',
    file: 'core/use-cases/auth/login-user.use-case.ts',
    find: 'if (!user || !valid) return',
    replace: 'if (!user) return',
    tests: ['tests/integration/auth.test.ts'],
  },
  {
    name: 'auth: routes: an email in ADMIN_EMAILS is not promoted on its next login',
    file: 'core/use-cases/auth/login-user.use-case.ts',
    find: "    if (this.deps.adminEmails.includes(email) && user.role !== 'admin') {\n      await users.setRole(",
    replace: "    if (false) {\n      await users.setRole(",
    tests: ['tests/integration/auth.test.ts'],
  },
  {
    name: 'auth: routes: a non-string email or password is not refused up front',
    file: 'core/use-cases/auth/login-user.use-case.ts',
    find: "if (typeof input.email !== 'string' || typeof input.password !== 'string' || input.password.length > 1024) {",
    replace: "if ((input.password as string).length > 1024) {",
    tests: ['tests/integration/auth-guards.test.ts'],
  },
  {
    name: 'auth: limits: sign-ups from one address are not limited',
    file: 'core/use-cases/auth/register-user.use-case.ts',
    find: "    if (!reserved.ok) return { ...fail('AUTH.RATE_LIMITED', 'Too many sign-ups from this address; try again later'), retryAfterSeconds: reserved.retryAfterSeconds };\n",
    replace: '',
    tests: ['tests/integration/abuse.test.ts'],
  },
  {
    name: 'auth: limits: a sign-up refused for a taken email keeps its slot of the address limit',
    file: 'core/use-cases/auth/register-user.use-case.ts',
    find: '      await reserved.release();\n      return fail(\'USER.EMAIL_TAKEN\'',
    replace: '      return fail(\'USER.EMAIL_TAKEN\'',
    tests: ['tests/integration/abuse.test.ts'],
  },
  {
    name: 'auth: limits: a common, repetitive or whitespace password is accepted at sign-up',
    file: 'core/use-cases/auth/register-user.use-case.ts',
    find: "  if (weak) problems.push({ field: 'password'",
    replace: "  if (false) problems.push({ field: 'password'",
    tests: ['tests/integration/abuse.test.ts'],
  },
  {
    name: 'auth: routes: a sign-up password longer than the maximum is accepted',
    file: 'core/domain/password-policy.ts',
    find: ' || password.length > PASSWORD_MAX) return',
    replace: ') return',
    tests: ['tests/integration/auth.test.ts', 'tests/integration/account.test.ts'],
  },
  {
    name: 'auth: routes: a sign-up password shorter than the minimum is accepted',
    file: 'core/domain/password-policy.ts',
    find: ' || password.length < PASSWORD_MIN ||',
    replace: ' ||',
    tests: ['tests/integration/auth.test.ts', 'tests/integration/account.test.ts'],
  },
  {
    name: 'auth: routes: a sign-up with an invalid email is accepted',
    file: 'core/use-cases/auth/register-user.use-case.ts',
    find: "if (typeof email !== 'string' || !isValidEmail(email.trim())) problems.push",
    replace: "if (typeof email !== 'string') problems.push",
    tests: ['tests/integration/auth.test.ts'],
  },
  {
    name: 'auth: routes: a sign-up display name longer than the maximum is accepted',
    file: 'core/domain/user.ts',
    find: ' || displayName.trim().length > DISPLAY_NAME_MAX) return',
    replace: ') return',
    tests: ['tests/integration/auth.test.ts', 'tests/integration/account.test.ts'],
  },
  {
    name: 'auth: routes: a sign-up display name of blanks is accepted',
    file: 'core/domain/user.ts',
    find: " || displayName.trim().length === 0 ||",
    replace: ' ||',
    tests: ['tests/integration/auth.test.ts', 'tests/integration/account.test.ts'],
  },
  {
    name: 'auth: routes: an email in ADMIN_EMAILS signs up as a plain user',
    file: 'core/use-cases/auth/register-user.use-case.ts',
    find: "const role = adminEmails.includes(email) ? 'admin' : 'user';",
    replace: "const role = 'user' as const;",
    tests: ['tests/integration/auth.test.ts'],
  },
  {
    name: 'auth: routes: a sign-up with a taken email is not refused as taken (the result of create is ignored)',
    file: 'core/use-cases/auth/create-account.service.ts',
    find: '  if (!(await tx.users.create(user))) return false;\n',
    replace: '  await tx.users.create(user);\n',
    tests: ['tests/integration/auth.test.ts'],
  },
  {
    name: 'auth: routes: a zero sign-up bonus writes an empty ledger entry',
    file: 'core/use-cases/auth/create-account.service.ts',
    find: '  if (deps.signupBonusCoins > 0) {',
    replace: '  if (deps.signupBonusCoins >= 0) {',
    tests: ['tests/integration/auth-guards.test.ts'],
  },
  // Password policy.
  {
    name: 'auth: policy: a password of two distinct characters passes',
    file: 'core/domain/password-policy.ts',
    find: 'if (new Set(folded).size < 3 || isRepetition(folded)',
    replace: 'if (isRepetition(folded)',
    tests: ['tests/unit/password-policy.test.ts'],
  },
  {
    name: 'auth: policy: a common password with a suffix passes (the stem is not checked)',
    file: 'core/domain/password-policy.ts',
    find: 'return [lower, stem, unleet(lower),',
    replace: 'return [lower, unleet(lower),',
    tests: ['tests/unit/password-policy.test.ts'],
  },
  {
    name: 'auth: policy: a common password in l33t spelling passes',
    file: 'core/domain/password-policy.ts',
    find: 'return [lower, stem, unleet(lower), unleet(lower).replace(/[\\d\\W_]+$/u, \'\')]',
    replace: 'return [lower, stem]',
    tests: ['tests/unit/password-policy.test.ts'],
  },
  {
    name: 'auth: policy: a common password in l33t spelling with a suffix passes',
    file: 'core/domain/password-policy.ts',
    find: ", unleet(lower).replace(/[\\d\\W_]+$/u, '')].some(",
    replace: '].some(',
    tests: ['tests/unit/password-policy.test.ts'],
  },
  {
    name: 'auth: policy: a simple sequence passes',
    file: 'core/domain/password-policy.ts',
    find: ' || isSequence(folded)) return',
    replace: ') return',
    tests: ['tests/unit/password-policy.test.ts'],
  },
  {
    name: 'auth: policy: a repeated unit passes',
    file: 'core/domain/password-policy.ts',
    find: ' || isRepetition(folded) ||',
    replace: ' ||',
    tests: ['tests/unit/password-policy.test.ts'],
  },
  // CSRF and admin routes (auth-middleware.ts).
  {
    name: 'auth: routes: a CSRF header of the right length but another value passes',
    file: 'adapters/http/auth-middleware.ts',
    find: 'return a.length === b.length && timingSafeEqual(a, b);',
    replace: 'return a.length === b.length;',
    tests: ['tests/integration/auth-guards.test.ts'],
  },
  {
    name: 'auth: routes: cookie-authenticated PUT, PATCH and DELETE need no CSRF header',
    file: 'adapters/http/auth-middleware.ts',
    find: "const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);",
    replace: "const STATE_CHANGING = new Set(['POST']);",
    tests: ['tests/integration/auth-guards.test.ts'],
  },
  {
    name: 'auth: routes: a cookie-authenticated POST needs no CSRF header',
    file: 'adapters/http/auth-middleware.ts',
    find: "if (found.via === 'cookie' && STATE_CHANGING.has(req.method) && !csrfOk(req)) {",
    replace: "if (found.via === 'cookie' && STATE_CHANGING.has(req.method) && false) {",
    tests: ['tests/integration/auth.test.ts'],
  },
  {
    name: "auth: admin routes: trust the role in the token, not the stored one (a demoted admin keeps access)",
    file: 'adapters/http/auth-middleware.ts',
    find: "if (level === 'admin' && claims.user.role !== 'admin') throw",
    replace: "if (level === 'admin' && claims.role !== 'admin') throw",
    tests: ['tests/integration/revocation.test.ts'],
  },
  {
    name: 'auth: admin routes: open to any signed-in user',
    file: 'adapters/http/auth-middleware.ts',
    find: "if (level === 'admin' && claims.user.role !== 'admin') throw",
    replace: "if (false) throw",
    tests: ['tests/integration/revocation.test.ts'],
  },
  {
    name: 'auth: user store: setRole changes every user, not the one named',
    file: 'adapters/sequelize/sequelize-user-repository.ts',
    find: "update({ role, updated_at: at }, { where: { id }, ...s.options })",
    replace: "update({ role, updated_at: at }, { where: {}, ...s.options })",
    tests: ['tests/contract/user-repository.test.ts'],
  },
  {
    name: 'auth: user store: a second account with a taken email is an error, not a refusal',
    file: 'adapters/sequelize/sequelize-user-repository.ts',
    find: '      if (isUniqueViolation(error)) return false;\n      throw error;\n    }\n  }\n\n  /** Read on every',
    replace: '      throw error;\n    }\n  }\n\n  /** Read on every',
    tests: ['tests/contract/user-repository.test.ts'],
  },
  // OpenID Connect (ADR 025).
  {
    name: 'auth: OIDC: a callback is accepted with a state other than the one this browser was given (login CSRF)',
    file: 'core/use-cases/auth/complete-oidc-login.use-case.ts',
    find: 'if (!state || !input.browserState || state !== input.browserState) {',
    replace: 'if (!state || !input.browserState) {',
    tests: ['tests/integration/oidc.test.ts'],
  },
  {
    name: 'auth: OIDC: a callback without the state cookie is accepted',
    file: 'core/use-cases/auth/complete-oidc-login.use-case.ts',
    find: 'if (!state || !input.browserState || state !== input.browserState) {',
    replace: 'if (!state) {',
    tests: ['tests/integration/oidc.test.ts'],
  },
  {
    name: 'auth: OIDC: a login started at one provider finishes at another',
    file: 'core/use-cases/auth/complete-oidc-login.use-case.ts',
    find: "    if (login.provider !== input.provider) return refuse(",
    replace: "    if (false) return refuse(",
    tests: ['tests/integration/oidc.test.ts'],
  },
  {
    name: "auth: OIDC: a provider's error answer is not reported as such",
    file: 'core/use-cases/auth/complete-oidc-login.use-case.ts',
    find: "    if (params.has('error')) return refuse(",
    replace: "    if (false) return refuse(",
    tests: ['tests/integration/oidc.test.ts'],
  },
  {
    name: 'auth: OIDC: an email the provider does not vouch for links or creates an account',
    file: 'core/use-cases/auth/complete-oidc-login.use-case.ts',
    find: 'if (!email || !isValidEmail(email) || !identity.emailVerified) {',
    replace: 'if (!email || !isValidEmail(email)) {',
    tests: ['tests/integration/oidc.test.ts'],
  },
  {
    name: 'auth: OIDC: a verified but malformed email creates an account',
    file: 'core/use-cases/auth/complete-oidc-login.use-case.ts',
    find: 'if (!email || !isValidEmail(email) || !identity.emailVerified) {',
    replace: 'if (!email || !identity.emailVerified) {',
    tests: ['tests/integration/oidc.test.ts'],
  },
  {
    name: 'auth: OIDC: a second identity at the same provider signs in as the user with its email, though it could not be linked',
    file: 'core/use-cases/auth/complete-oidc-login.use-case.ts',
    find: "      if (!(await identities.link({ ...link, userId: owner.id }))) return refuse(",
    replace: "      if (!(await identities.link({ ...link, userId: owner.id })) && false) return refuse(",
    tests: ['tests/integration/oidc.test.ts'],
  },
  {
    name: "auth: OIDC: linking an identity another user holds is not refused",
    file: 'core/use-cases/auth/complete-oidc-login.use-case.ts',
    find: "    if (!linked) return refuse('identity_in_use'",
    replace: "    if (false) return refuse('identity_in_use'",
    tests: ['tests/integration/oidc.test.ts'],
  },
  {
    name: 'auth: OIDC: relinking the identity already linked to this user is refused as in use',
    file: 'core/use-cases/auth/complete-oidc-login.use-case.ts',
    find: "    if (existing?.userId === userId) return ok({ kind: 'linked', provider: login.provider });\n",
    replace: '',
    tests: ['tests/integration/oidc.test.ts'],
  },
  {
    name: 'auth: OIDC: an email in ADMIN_EMAILS is not promoted on an OIDC login',
    file: 'core/use-cases/auth/complete-oidc-login.use-case.ts',
    find: "    if (this.deps.adminEmails.includes(user.email) && user.role !== 'admin') {",
    replace: '    if (false) {',
    tests: ['tests/integration/oidc.test.ts'],
  },
  {
    name: 'auth: OIDC: an unknown provider name is not refused as such',
    file: 'core/use-cases/auth/start-oidc-login.use-case.ts',
    find: "    if (!providers.has(input.provider)) return fail('AUTH.UNKNOWN_PROVIDER'",
    replace: "    if (false) return fail('AUTH.UNKNOWN_PROVIDER'",
    tests: ['tests/integration/oidc.test.ts'],
  },
  {
    name: "auth: OIDC: the last way to sign in of a user without a password can be unlinked",
    file: 'core/use-cases/auth/unlink-identity.use-case.ts',
    find: '      if (!hasPassword && identities.length <= 1) {',
    replace: '      if (false) {',
    tests: ['tests/integration/oidc.test.ts', 'tests/contract/identity-repository.test.ts'],
  },
  {
    name: 'auth: OIDC: a user without a password cannot unlink one of two identities',
    file: 'core/use-cases/auth/unlink-identity.use-case.ts',
    find: '      if (!hasPassword && identities.length <= 1) {',
    replace: '      if (!hasPassword) {',
    tests: ['tests/integration/oidc.test.ts'],
  },
  {
    name: 'auth: OIDC: unlinking a provider that is not linked answers success',
    file: 'core/use-cases/auth/unlink-identity.use-case.ts',
    find: "      if (!identities.some((identity) => identity.provider === input.provider)) return fail(",
    replace: "      if (false) return fail(",
    tests: ['tests/integration/oidc.test.ts'],
  },
  {
    name: "auth: OIDC: listing a user's identities in a transaction locks nothing (two removals each leave the other's)",
    file: 'adapters/sequelize/sequelize-identity-repository.ts',
    find: '      ...(lock ? { lock: true } : {}),',
    replace: '      ...(false ? { lock: true } : {}),',
    tests: ['tests/contract/identity-repository.test.ts'],
  },
  {
    name: "auth: OIDC: unlink removes every user's identity at that provider",
    file: 'adapters/sequelize/sequelize-identity-repository.ts',
    find: 'destroy({ where: { user_id: userId, provider }, ...s.options })',
    replace: 'destroy({ where: { provider }, ...s.options })',
    tests: ['tests/contract/identity-repository.test.ts'],
  },
  {
    name: 'auth: OIDC: a subject is found at any provider',
    file: 'adapters/sequelize/sequelize-identity-repository.ts',
    find: 'findOne({ where: { provider, subject }, raw: true',
    replace: 'findOne({ where: { subject }, raw: true',
    tests: ['tests/contract/identity-repository.test.ts'],
  },
  {
    name: 'auth: OIDC: an identity linked twice is an error, not a refusal',
    file: 'adapters/sequelize/sequelize-identity-repository.ts',
    find: '      if (isUniqueViolation(error)) return false;',
    replace: '',
    tests: ['tests/contract/identity-repository.test.ts'],
  },
  {
    name: 'auth: cli: promoting an unknown email is not refused as such',
    file: 'core/use-cases/auth/promote-user.use-case.ts',
    find: "    if (!user) return fail('NOT_FOUND', `No user with email ${input.email}`);",
    replace: "    if (false) return fail('NOT_FOUND', `No user with email ${input.email}`);",
    tests: ['tests/integration/cli.test.ts'],
  },
  // Audit of the crypto, WebSocket upgrade and OpenID Connect adapters.
  {
    name: "auth: jwt: a token signed with HS384/HS512 under the same secret is accepted",
    file: "adapters/crypto/jwt-token-issuer.ts",
    find: "algorithms: ['HS256'],",
    replace: "algorithms: ['HS256', 'HS384', 'HS512'],",
    tests: ["tests/unit/jwt-token-issuer.test.ts"],
  },
  {
    name: "auth: jwt: a token of another issuer is accepted",
    file: "adapters/crypto/jwt-token-issuer.ts",
    find: "        issuer: this.options.issuer,\n        audience: this.options.audience,\n        clockTimestamp: nowSeconds,",
    replace: "        audience: this.options.audience,\n        clockTimestamp: nowSeconds,",
    tests: ["tests/unit/jwt-token-issuer.test.ts"],
  },
  {
    name: "auth: jwt: a token for another audience is accepted",
    file: "adapters/crypto/jwt-token-issuer.ts",
    find: "        audience: this.options.audience,\n        clockTimestamp: nowSeconds,",
    replace: "        clockTimestamp: nowSeconds,",
    tests: ["tests/unit/jwt-token-issuer.test.ts"],
  },
  {
    name: "auth: jwt: a token without exp is accepted (it never expires)",
    file: "adapters/crypto/jwt-token-issuer.ts",
    find: " || typeof claims.exp !== 'number') return null;",
    replace: ") return null;",
    tests: ["tests/unit/jwt-token-issuer.test.ts"],
  },
  {
    name: "auth: jwt: a token without a string sub is accepted",
    file: "adapters/crypto/jwt-token-issuer.ts",
    find: "typeof claims.sub !== 'string' || ",
    replace: "",
    tests: ["tests/unit/jwt-token-issuer.test.ts"],
  },
  {
    name: "auth: jwt: a token without a jti is accepted",
    file: "adapters/crypto/jwt-token-issuer.ts",
    find: " || typeof claims.jti !== 'string'",
    replace: "",
    tests: ["tests/unit/jwt-token-issuer.test.ts"],
  },
  {
    name: "auth: jwt: a token with a role other than user or admin is accepted",
    file: "adapters/crypto/jwt-token-issuer.ts",
    find: "      if (role !== 'user' && role !== 'admin') return null;\n",
    replace: "",
    tests: ["tests/unit/jwt-token-issuer.test.ts"],
  },
  {
    name: "auth: jwt: a token verified once stays valid past its expiry",
    file: "adapters/crypto/jwt-token-issuer.ts",
    find: "      if (nowSeconds < known.expiresAt.getTime() / 1000) return known;",
    replace: "      return known;",
    tests: ["tests/unit/jwt-token-issuer.test.ts"],
  },
  {
    name: "auth: jwt: a token verified once is still valid in the second its expiry is reached",
    file: "adapters/crypto/jwt-token-issuer.ts",
    find: "if (nowSeconds < known.expiresAt.getTime() / 1000) return known;",
    replace: "if (nowSeconds <= known.expiresAt.getTime() / 1000) return known;",
    tests: ["tests/unit/jwt-token-issuer.test.ts"],
  },
  {
    name: "auth: cipher: a sealed text of another version opens as v1",
    file: "adapters/crypto/aes-gcm-token-cipher.ts",
    find: "parts.length !== 5 || parts[0] !== 'v1'",
    replace: "parts.length !== 5",
    tests: ["tests/unit/token-cipher.test.ts"],
  },
  {
    name: "auth: cipher: a sealed text with parts appended opens",
    file: "adapters/crypto/aes-gcm-token-cipher.ts",
    find: "parts.length !== 5 || parts[0] !== 'v1'",
    replace: "parts.length < 5 || parts[0] !== 'v1'",
    tests: ["tests/unit/token-cipher.test.ts"],
  },
  {
    name: "auth: cipher: an IV of another length than 12 bytes is used",
    file: "adapters/crypto/aes-gcm-token-cipher.ts",
    find: "if (iv.length !== 12 || tag.length !== 16)",
    replace: "if (tag.length !== 16)",
    tests: ["tests/unit/token-cipher.test.ts"],
  },
  {
    name: "auth: cipher: a token sealed with an unknown key id fails without saying which key",
    file: "adapters/crypto/aes-gcm-token-cipher.ts",
    find: "    if (!key) throw new Error(`sealed with key \"${parts[1]}\", which is not configured`);\n",
    replace: "",
    tests: ["tests/unit/token-cipher.test.ts"],
  },
  {
    name: "auth: cipher: a cipher without a key is built (and fails at the first seal)",
    file: "adapters/crypto/aes-gcm-token-cipher.ts",
    find: "    if (keys.length === 0) throw new Error('AesGcmTokenCipher needs at least one key');\n",
    replace: "",
    tests: ["tests/unit/token-cipher.test.ts"],
  },
  {
    name: "auth: cipher: a key of another length than 32 bytes is accepted at start",
    file: "adapters/crypto/aes-gcm-token-cipher.ts",
    find: "    for (const { key } of keys) if (key.length !== 32) throw new Error('AES-256-GCM keys are 32 bytes');\n",
    replace: "",
    tests: ["tests/unit/token-cipher.test.ts"],
  },
  {
    name: "auth: cipher: TOKEN_ENCRYPTION_KEY with a key id of other characters is accepted",
    file: "adapters/crypto/aes-gcm-token-cipher.ts",
    find: "    if (id !== null && !KEY_ID.test(id)) return",
    replace: "    if (false) return",
    tests: ["tests/unit/token-cipher.test.ts"],
  },
  {
    name: "auth: cipher: TOKEN_ENCRYPTION_KEY with one key id twice is accepted",
    file: "adapters/crypto/aes-gcm-token-cipher.ts",
    find: "    if (keys.some((known) => known.id === keyId)) return",
    replace: "    if (false) return",
    tests: ["tests/unit/token-cipher.test.ts"],
  },
  {
    name: "auth: cipher: TOKEN_ENCRYPTION_KEY without any key is accepted",
    file: "adapters/crypto/aes-gcm-token-cipher.ts",
    find: "  if (entries.length === 0) return { problem: 'no key given' };\n",
    replace: "",
    tests: ["tests/unit/token-cipher.test.ts"],
  },
  {
    name: "auth: ws: the first cookie of any name is read as the access token",
    file: "adapters/ws/upgrade-request.ts",
    find: "if (index < 0 || part.slice(0, index).trim() !== name) continue;",
    replace: "if (index < 0) continue;",
    tests: ["tests/unit/upgrade-request.test.ts"],
  },
  {
    name: "auth: ws: a cookie whose name ends in access_token is read as the access token",
    file: "adapters/ws/upgrade-request.ts",
    find: "part.slice(0, index).trim() !== name",
    replace: "!part.slice(0, index).trim().endsWith(name)",
    tests: ["tests/unit/upgrade-request.test.ts"],
  },
  {
    name: "auth: ws: an opaque origin (\"null\") is taken for an origin",
    file: "adapters/ws/upgrade-request.ts",
    find: "return url.origin === 'null' ? null : url.origin;",
    replace: "return url.origin;",
    tests: ["tests/unit/upgrade-request.test.ts"],
  },
  {
    name: "auth: ws: a foreign Origin opens a socket",
    file: "adapters/ws/ws-gateway.ts",
    find: "if (normalized === null || !this.origins.has(normalized)) return rejectUpgrade(socket, 403",
    replace: "if (normalized === null) return rejectUpgrade(socket, 403",
    tests: ["tests/integration/websocket.test.ts"],
  },
  {
    name: "auth: ws: any Origin passes as the service's own host",
    file: "adapters/ws/ws-gateway.ts",
    find: "    return new URL(origin).host.toLowerCase() === host.toLowerCase();",
    replace: "    return true;",
    tests: ["tests/integration/websocket.test.ts"],
  },
  {
    name: "auth: ws: an upgrade without a token is judged as an invalid token",
    file: "adapters/ws/ws-gateway.ts",
    find: "    if (!token) return rejectUpgrade(socket, 401, 'Authentication required');\n",
    replace: "",
    tests: ["tests/integration/websocket.test.ts"],
  },
  {
    name: "auth: ws: an invalid or logged-out token opens a socket",
    file: "adapters/ws/ws-gateway.ts",
    find: "    if (!claims) return rejectUpgrade(socket, 401, 'Access token is invalid or expired');\n",
    replace: "    if (!claims) return void this.wss.handleUpgrade(req, socket, head, (ws) => ws.close());\n",
    tests: ["tests/integration/websocket.test.ts"],
  },
  {
    name: "auth: oidc: the state cookie is readable by scripts (not HttpOnly)",
    file: "adapters/http/routes/oidc.routes.ts",
    find: "  httpOnly: true,\n  path: '/api',",
    replace: "  httpOnly: false,\n  path: '/api',",
    tests: ["tests/integration/oidc.test.ts"],
  },
  {
    name: "auth: oidc: the state cookie has no SameSite (insecure mode)",
    file: "adapters/http/routes/oidc.routes.ts",
    find: ": { secure: false, sameSite: 'lax' }),",
    replace: ": { secure: false }),",
    tests: ["tests/integration/oidc.test.ts"],
  },
  {
    name: "auth: oidc: the state cookie is sent to every path",
    file: "adapters/http/routes/oidc.routes.ts",
    find: "  httpOnly: true,\n  path: '/api',",
    replace: "  httpOnly: true,\n  path: '/',",
    tests: ["tests/integration/oidc.test.ts"],
  },
  {
    name: "auth: oidc: the callback leaves the state cookie in the browser",
    file: "adapters/http/routes/oidc.routes.ts",
    find: "      res.clearCookie(OIDC_STATE_COOKIE, stateCookie(deps.cookies));\n",
    replace: "",
    tests: ["tests/integration/oidc.test.ts"],
  },
  {
    name: "auth: oidc: GET /auth/<unknown provider> redirects instead of 404",
    file: "adapters/http/routes/oidc.routes.ts",
    find: "        if (result.code === 'AUTH.UNKNOWN_PROVIDER') return sendFail(res, result);\n",
    replace: "",
    tests: ["tests/integration/oidc.test.ts"],
  },
  {
    name: "auth: oidc: a callback that linked an identity is taken for a sign-in",
    file: "adapters/http/routes/oidc.routes.ts",
    find: "      if (result.value.kind === 'linked') return res.redirect(",
    replace: "      if (false) return res.redirect(",
    tests: ["tests/integration/oidc.test.ts"],
  },
  {
    name: "auth: oidc: POST /auth/<provider>/link is public",
    file: "adapters/http/routes/oidc.routes.ts",
    find: "      path: '/auth/:provider/link',\n      summary: \"Start linking a provider to the signed-in user: answers the provider's authorization URL to navigate to\",\n      tag: 'auth',\n      auth: 'access',",
    replace: "      path: '/auth/:provider/link',\n      summary: \"Start linking a provider to the signed-in user: answers the provider's authorization URL to navigate to\",\n      tag: 'auth',\n      auth: 'public',",
    tests: ["tests/integration/oidc.test.ts"],
  },
  {
    name: "auth: oidc: email_verified \"false\" (a string) counts as verified",
    file: "adapters/openid/openid-client-providers.ts",
    find: "emailVerified: claims.email_verified === true || claims.email_verified === 'true',",
    replace: "emailVerified: Boolean(claims.email_verified),",
    tests: ["tests/integration/oidc.test.ts"],
  },
  {
    name: "auth: oidc: email_verified \"true\" (a string) counts as unverified",
    file: "adapters/openid/openid-client-providers.ts",
    find: "emailVerified: claims.email_verified === true || claims.email_verified === 'true',",
    replace: "emailVerified: claims.email_verified === true,",
    tests: ["tests/integration/oidc.test.ts"],
  },
  {
    name: "auth: oidc: a failed discovery is kept, refusing every later login until a restart",
    file: "adapters/openid/openid-client-providers.ts",
    find: "      configuration.catch(() => this.configurations.delete(provider));\n",
    replace: "      configuration.catch(() => undefined);\n",
    tests: ["tests/unit/openid-client-providers.test.ts"],
  },
  {
    name: "auth: oidc: the PKCE challenge is not sent",
    file: "adapters/openid/openid-client-providers.ts",
    find: "      code_challenge_method: 'S256',\n",
    replace: "",
    also: [
      { file: "adapters/openid/openid-client-providers.ts", find: "      code_challenge: await client.calculatePKCECodeChallenge(secrets.codeVerifier),\n", replace: "" },
    ],
    tests: ["tests/integration/oidc.test.ts"],
  },
  {
    name: "auth: oidc: the nonce is not sent to the provider",
    file: "adapters/openid/openid-client-providers.ts",
    find: "      nonce: secrets.nonce,\n",
    replace: "",
    tests: ["tests/integration/oidc.test.ts"],
  },
  ...passwordHasherMutations(),
  ...oidcCallbackMutations(),
  ...smallAuthUseCaseMutations(),
  ...authMiddlewareMutations(),
];

/** Password hashes (adapters/crypto/scrypt-password-hasher.ts). Not listed: `stored !== null` after the dummy hash, whose password is random and unknown, so no test can reach it; it stays as a second lock. */
function passwordHasherMutations(): Mutation[] {
  const file = 'adapters/crypto/scrypt-password-hasher.ts';
  const tests = ['tests/unit/scrypt-password-hasher.test.ts'];
  const entry = entriesOn('password hash', file, tests);
  return [
    entry("another scheme's prefix read as scrypt", "if (parts.length !== 6 || parts[0] !== 'scrypt') return false;", 'if (parts.length !== 6) return false;'),
    entry('a stored value of another number of parts read', "if (parts.length !== 6 || parts[0] !== 'scrypt') return false;", "if (parts[0] !== 'scrypt') return false;"),
    entry('the stored parameters ignored for the configured ones', '      N: Number(N),\n      r: Number(r),\n      p: Number(p),', '      N: this.params.N,\n      r: this.params.r,\n      p: this.params.p,'),
    entry('no fresh salt per hash', '    const salt = randomBytes(16);', '    const salt = Buffer.alloc(16);'),
    entry('a hash slot never given back (later hashes wait forever)', '    else running--;', '    else void running;'),
  ];
}

/** adapters/http/auth-middleware.ts beyond the CSRF and admin entries above: where a credential is read from, API keys, and refusals. */
function authMiddlewareMutations(): Mutation[] {
  const entry = entriesOn('auth: middleware', 'adapters/http/auth-middleware.ts', ['tests/integration/auth-guards.test.ts', 'tests/integration/auth.test.ts', 'tests/integration/api-keys.test.ts']);
  return [
    entry('a request without any credential reaches the route', "    if (!found) throw new HttpError(401, 'Authentication required');\n", ''),
    entry('a bad access token reaches the route', "    if (!claims) throw new HttpError(401, 'Access token is invalid or expired');\n", ''),
    entry('a missing CSRF cookie or header is an error (500), not a refusal', '  if (!cookie || !header) return false;\n', ''),
    entry('bearer requests need the CSRF header too', "if (found.via === 'cookie' && STATE_CHANGING.has(req.method) && !csrfOk(req)) {", 'if (STATE_CHANGING.has(req.method) && !csrfOk(req)) {'),
    entry('an API key in the access cookie is taken as a key (no CSRF check)', "if (found.via === 'bearer' && isApiKeyText(found.token)) {", 'if (isApiKeyText(found.token)) {'),
    entry('an unknown or revoked API key reaches the route', '  if (!outcome.ok) throw new HttpError(401, outcome.message);\n', ''),
    // Defended twice: the key's scopes lose admin with the role (core/domain/api-key.ts), and the route checks the role.
    entry("a demoted administrator's API key opens administrator routes", "      if (level === 'admin' && principal.user.role !== 'admin') throw new HttpError(403, 'Administrator role required');\n", '', [
      { file: 'core/domain/api-key.ts', find: "return key.scopes.filter((scope) => scope !== 'admin' || role === 'admin');", replace: 'return [...key.scopes];' },
    ]),
    entry("an Authorization header that is not Bearer is read as a bearer token", "if (header?.startsWith('Bearer ')) return", "if (header) return"),
    entry('a bearer token keeps surrounding spaces', "return { token: header.slice(7).trim(), via: 'bearer' };", "return { token: header.slice(7), via: 'bearer' };"),
  ];
}


/**
 * core/use-cases/auth/complete-oidc-login.use-case.ts beyond the OIDC entries above, on the in-memory adapters.
 * Not listed: `!state` in the state check (an empty state with a state cookie already differs from it, and without
 * one `!input.browserState` refuses it), and `user.role !== 'admin'` in the promotion (promoting an administrator
 * again changes nothing anyone can see).
 */
function oidcCallbackMutations(): Mutation[] {
  const entry = entriesOn('auth: OIDC callback', 'core/use-cases/auth/complete-oidc-login.use-case.ts', ['tests/unit/complete-oidc-login-guards.test.ts']);
  return [
    entry('a verified email links a password account (pre-hijacking: the registrant keeps a way in)', "      if (owner.passwordHash !== null) return refuse('sign_in_to_link'", "      if ((false as boolean)) return refuse('sign_in_to_link'"),
    entry('an unknown provider is not refused as such (and spends the state)', '    if (!providers.has(input.provider)) return refuse(', '    if ((false as boolean)) return refuse('),
    entry('a state nobody issued crashes the callback', "    if (!login) return refuse('invalid_state'", "    if ((false as boolean)) return refuse('invalid_state'"),
    entry('a failed code exchange goes on to sign in', "    if (!exchanged.ok) return refuse('exchange_failed', exchanged.cause);\n", ''),
    entry('a login started to link a provider signs in instead', 'return login.linkUserId ? this.link(login, login.linkUserId, exchanged.identity) : this.signIn(login, exchanged.identity);', 'return this.signIn(login, exchanged.identity);'),
    entry('an identity linked by subject is judged by its email again', '    if (linked) {\n      const user = await users.findById(linked.userId);', '    if ((false as boolean)) {\n      const user = await users.findById(linked!.userId);'),
    entry('an identity whose user is gone crashes the callback', "      if (!user) return refuse('account_conflict', 'the linked user no longer exists');\n", ''),
    entry('a vouched-for login without an email crashes the callback', 'if (!email || !isValidEmail(email) || !identity.emailVerified) {', 'if (!isValidEmail(email!) || !identity.emailVerified) {'),
    entry("the provider's email is not trimmed and lowercased", 'const email = identity.email === null ? null : normalizeEmail(identity.email);', 'const email = identity.email;'),
    entry("the owner's password hash goes into the session", 'const { passwordHash: _hidden, ...user } = owner;', 'const user = owner;'),
    entry('an email taken during the creation crashes the callback', "    if (!created) return refuse('account_conflict'", "    if ((false as boolean)) return refuse('account_conflict'"),
    entry('an account that could not be created still gets the identity', 'link.createdAt }))) return false;', 'link.createdAt })) && (false as boolean)) return false;'),
    entry('a fresh identity that could not be linked leaves a new account signed in without it', '      if (!(await tx.identities.link({ ...link, userId: id }))) throw new Error(', '      if (!(await tx.identities.link({ ...link, userId: id })) && (false as boolean)) throw new Error('),
    entry('a name of blanks becomes an empty display name', "identity.name?.trim() || email.split('@')[0]!", "identity.name?.trim() ?? email.split('@')[0]!"),
    entry('a display name is not bounded', '.slice(0, DISPLAY_NAME_MAX);', ';'),
    entry('every OIDC sign-up is an administrator', "const role = adminEmails.includes(email) ? 'admin' : 'user';", "const role = 'admin';"),
    // Defended twice: the account is created as admin, and every sign-in promotes an ADMIN_EMAILS user.
    entry('an email in ADMIN_EMAILS signs up as a user', "const role = adminEmails.includes(email) ? 'admin' : 'user';", "const role = 'user';", [
      { file: 'core/use-cases/auth/complete-oidc-login.use-case.ts', find: "    if (this.deps.adminEmails.includes(user.email) && user.role !== 'admin') {", replace: '    if ((false as boolean)) {' },
    ]),
  ];
}

/**
 * The small auth use cases and services (tests/unit/auth-social-small-guards.test.ts). Not listed: `pending.state` and
 * `pending.provider` in the pending login's completeness (the single-use store compares the record's state with the
 * one asked, and the callback compares the provider, both refusing as invalid_state).
 */
function smallAuthUseCaseMutations(): Mutation[] {
  const tests = ['tests/unit/auth-social-small-guards.test.ts'];
  const on = (file: string, extra: string[] = []) => entriesOn('auth: small use cases', `core/use-cases/auth/${file}`, [...tests, ...extra]);
  const profile = on('get-profile.use-case.ts');
  const identities = on('list-identities.use-case.ts');
  const promote = on('promote-user.use-case.ts');
  const start = on('start-oidc-login.use-case.ts', ['tests/unit/complete-oidc-login-guards.test.ts']);
  const pending = on('oidc-pending-logins.service.ts');
  const session = on('session-tokens.service.ts');
  return [
    profile('the profile of a user who is gone is an empty success', "return user ? ok(user) : fail('AUTH.UNAUTHENTICATED', 'The account no longer exists');", 'return ok(user!);'),
    identities('the identities of a user who is gone crash', "    if (!user) return fail('NOT_FOUND', 'User not found');\n", ''),
    identities('a user without a password is said to have one', 'hasPassword: Boolean(withHash?.passwordHash)', 'hasPassword: Boolean(withHash)'),
    promote('promote does not normalize the email it is given', 'findByEmail(normalizeEmail(input.email))', 'findByEmail(input.email)'),
    promote('promote answers the password hash', 'const { passwordHash: _hidden, ...rest } = user;', 'const rest = user;'),
    promote('promote answers admin without storing the role', "    await this.deps.users.setRole(user.id, 'admin', this.deps.clock.now());\n", ''),
    start('a provider that cannot be reached is an error, not UPSTREAM.FAILED', '    try {\n      started = await providers.begin(input.provider);\n    } catch (error) {', '    started = await providers.begin(input.provider);\n    try {\n    } catch (error) {'),
    start('a link start forgets the user who links (the callback signs in instead)', 'linkUserId: input.linkUserId ?? null', 'linkUserId: null'),
    pending('a pending login without its nonce is taken', '[pending.state, pending.nonce, pending.codeVerifier, pending.provider]', '[pending.state, pending.codeVerifier, pending.provider]'),
    pending('a pending login without its PKCE verifier is taken', '[pending.state, pending.nonce, pending.codeVerifier, pending.provider]', '[pending.state, pending.nonce, pending.provider]'),
    pending('a pending login with an empty secret is taken', "typeof secret === 'string' && secret.length > 0", "typeof secret === 'string'"),
    session('the refresh token is stored in clear', 'tokenHash: deps.tokens.hashOpaqueToken(refreshToken),', 'tokenHash: refreshToken,'),
    session('the refresh lifetime is read as milliseconds', 'now.getTime() + deps.refreshTokenTtlSeconds * 1000', 'now.getTime() + deps.refreshTokenTtlSeconds'),
    session('the access token names no family of the session', 'deps.tokens.issueAccessToken(user, familyId)', 'deps.tokens.issueAccessToken(user, deps.ids.newId())'),
    session('the refresh token is stored outside its family', '    familyId,\n    tokenHash:', '    familyId: deps.ids.newId(),\n    tokenHash:'),
    on('unlink-identity.use-case.ts')('unlinking an identity of a user who is gone crashes', 'const hasPassword = user ? Boolean((await tx.users.findByEmail(user.email))?.passwordHash) : false;', 'const hasPassword = Boolean((await tx.users.findByEmail(user!.email))?.passwordHash);'),
    on('unlink-identity.use-case.ts')('a user without a password may unlink the last identity', 'const hasPassword = user ? Boolean((await tx.users.findByEmail(user.email))?.passwordHash) : false;', 'const hasPassword = user ? Boolean(await tx.users.findByEmail(user.email)) : false;'),
    ...refreshGuards(),
    on('attempt-limits.service.ts')('a refused attempt at the end of its window is told to wait 0 seconds', 'retryAfterSeconds: Math.max(1, hit.ttlSeconds)', 'retryAfterSeconds: hit.ttlSeconds'),
  ];
}

/** core/use-cases/auth/refresh-session.use-case.ts and session-revocations.service.ts beyond sessions.mutations.ts (tests/unit/refresh-session-guards.test.ts). */
function refreshGuards(): Mutation[] {
  const tests = ['tests/unit/refresh-session-guards.test.ts'];
  const refresh = entriesOn('auth: refresh', 'core/use-cases/auth/refresh-session.use-case.ts', tests);
  const revocations = entriesOn('auth: refresh', 'core/use-cases/auth/session-revocations.service.ts', tests);
  return [
    refresh('a refresh without a token crashes instead of 401', '    if (!input.refreshToken) return unauthenticated;\n', ''),
    refresh('a refresh token nobody issued crashes instead of 401', '    if (!session) return unauthenticated;\n', ''),
    refresh('a refresh for a user who is gone crashes instead of 401', "return user ? issueSession(this.deps, tx.sessions, user, session.familyId) : 'gone';", 'return issueSession(this.deps, tx.sessions, user!, session.familyId);'),
    revocations('a revocation the event bus cannot announce fails the logout', ".catch((error: unknown) => this.deps.logger.warn('session revocation not announced", ".then((error: unknown) => this.deps.logger.warn('session revocation not announced"),
  ];
}
