import type { Mutation } from '../mutation.ts';

export const MUTATIONS: Mutation[] = [
  {
    name: 'sockets ignore session revocation',
    file: 'adapters/ws/ws-gateway.ts',
    find: "client.ws.close(WS_CLOSE.SESSION_REVOKED, 'session revoked');",
    replace: '',
    tests: ['tests/integration/exactly-once-defects.test.ts'],
  },
  {
    name: 'sockets outlive their access token',
    file: 'adapters/ws/ws-gateway.ts',
    find: "      else client.ws.close(WS_CLOSE.TOKEN_EXPIRED, 'access token expired');",
    replace: '      else undefined;',
    tests: ['tests/integration/exactly-once-defects.test.ts'],
  },
  {
    name: 'refresh rotation outside one transaction, revocation in one statement',
    file: 'core/use-cases/auth/refresh-session.use-case.ts',
    find: `    const issued = await uow.run(async (tx) => {
      // Two refreshes racing with one token: only the first wins; the second is treated as reuse.
      if (!(await tx.sessions.markRotated(session.id, now))) return 'reused';
      const user = await tx.users.findById(session.userId);`,
    replace: `    const tx = { sessions, users: (uow as unknown as { autocommit: { users: { findById(id: string): Promise<unknown> } } }).autocommit.users } as unknown as Parameters<Parameters<typeof uow.run>[0]>[0];
    const issued = await (async () => {
      if (!(await tx.sessions.markRotated(session.id, now))) return 'reused';
      const user = await tx.users.findById(session.userId);`,
    also: [
      { file: 'core/use-cases/auth/refresh-session.use-case.ts', find: `return user ? issueSession(this.deps, tx.sessions, user, session.familyId) : 'gone';
    });`, replace: `return user ? issueSession(this.deps, tx.sessions, user, session.familyId) : 'gone';
    })();` },
      {
        file: 'core/use-cases/auth/session-revocations.service.ts',
        find: '    // A rotation of this family that held one of its tokens while the first statement ran has committed by\n    // the time that statement returns; the second one catches the token that rotation issued.\n    await sessions.revokeFamily(familyId, clock.now());\n',
        replace: '',
      },
    ],
    tests: ['tests/integration/exactly-once-defects.test.ts'],
  },
  {
    name: 'sessions: store: a logged-out access token still authenticates (the lone login check ignores revocation)',
    file: 'adapters/sequelize/sequelize-session-repository.ts',
    find: '(SELECT 1 FROM refresh_sessions WHERE family_id = ? AND revoked_at IS NOT NULL LIMIT 1) AS revoked',
    replace: '(SELECT 1 FROM refresh_sessions WHERE family_id = ? AND 1 = 0 LIMIT 1) AS revoked',
    tests: ['tests/contract/session-repository.test.ts'],
  },
  {
    name: 'sessions: store: a logged-out access token still authenticates when its check is batched with others',
    file: 'adapters/sequelize/sequelize-session-repository.ts',
    find: "return familyId !== null && revokedFamilies.has(familyId) ? { state: 'revoked' }",
    replace: "return false ? { state: 'revoked' }",
    tests: ['tests/contract/session-repository.test.ts'],
  },
  {
    name: 'sessions: store: a batched login check takes every family with a token as revoked',
    file: 'adapters/sequelize/sequelize-session-repository.ts',
    find: 'WHERE family_id IN ${inList(familyIds.length)} AND revoked_at IS NOT NULL`',
    replace: 'WHERE family_id IN ${inList(familyIds.length)}`',
    tests: ['tests/contract/session-repository.test.ts'],
  },
  {
    name: 'sessions: store: a batched login check of a deleted user is active',
    file: 'adapters/sequelize/sequelize-session-repository.ts',
    find: "      if (!row) return { state: 'no-user' };\n      return familyId",
    replace: "      if (!row) return { state: 'active', user: {} as never };\n      return familyId",
    tests: ['tests/contract/session-repository.test.ts'],
  },
  {
    name: 'sessions: store: a refresh token is rotated twice (the conditional update ignores rotated_at)',
    file: 'adapters/sequelize/sequelize-session-repository.ts',
    find: 'where: { id, rotated_at: null, revoked_at: null }',
    replace: 'where: { id, revoked_at: null }',
    tests: ['tests/contract/session-repository.test.ts'],
  },
  {
    name: 'sessions: store: a revoked refresh token is rotated (the conditional update ignores revoked_at)',
    file: 'adapters/sequelize/sequelize-session-repository.ts',
    find: 'where: { id, rotated_at: null, revoked_at: null }',
    replace: 'where: { id, rotated_at: null }',
    tests: ['tests/contract/session-repository.test.ts'],
  },
  {
    name: "sessions: store: revoking one login revokes every login",
    file: 'adapters/sequelize/sequelize-session-repository.ts',
    find: 'where: { family_id: familyId, revoked_at: null }',
    replace: 'where: { revoked_at: null }',
    tests: ['tests/contract/session-repository.test.ts'],
  },
  {
    name: 'sessions: tokens: a rotated or revoked refresh token rotates again (the early check and the conditional update both gone)',
    file: 'core/use-cases/auth/refresh-session.use-case.ts',
    find: '    if (session.rotatedAt || session.revokedAt) {',
    replace: '    if (false) {',
    also: [{ file: 'adapters/sequelize/sequelize-session-repository.ts', find: 'where: { id, rotated_at: null, revoked_at: null }', replace: 'where: { id }' }],
    tests: ['tests/integration/session-guards.test.ts'],
  },
  {
    name: 'sessions: tokens: the loser of two refreshes racing with one token revokes nothing',
    file: 'core/use-cases/auth/refresh-session.use-case.ts',
    find: "    if (issued === 'reused') await this.deps.revocations.revokeFamily(session.userId, session.familyId);\n",
    replace: '',
    tests: ['tests/integration/exactly-once-defects.test.ts'],
  },
  {
    name: 'sessions: tokens: refresh-token reuse revokes nothing (the rotation is refused, the family lives on)',
    file: 'core/use-cases/auth/refresh-session.use-case.ts',
    find: '      await this.deps.revocations.revokeFamily(session.userId, session.familyId);\n      return unauthenticated;',
    replace: '      return unauthenticated;',
    tests: ['tests/integration/session-guards.test.ts'],
  },
  {
    name: "sessions: tokens: logout with another user's refresh cookie revokes that user's login",
    file: 'core/use-cases/auth/logout-user.use-case.ts',
    find: 'if (session && session.userId === input.userId && session.familyId !== input.sessionId) {',
    replace: 'if (session && session.familyId !== input.sessionId) {',
    tests: ['tests/integration/session-guards.test.ts'],
  },
  {
    name: 'sessions: tokens: a revoked login is not announced (its sockets stay open)',
    file: 'core/use-cases/auth/session-revocations.service.ts',
    find: "    await this.announce({ type: 'session.revoked', userId, sessionId: familyId });\n",
    replace: '',
    tests: ['tests/integration/session-guards.test.ts'],
  },
  {
    name: 'sessions: tokens: logout and reuse revoke nothing in the database (both statements gone)',
    file: 'core/use-cases/auth/session-revocations.service.ts',
    find: '    await sessions.revokeFamily(familyId, clock.now());\n    // A rotation',
    replace: '    // A rotation',
    also: [
      {
        file: 'core/use-cases/auth/session-revocations.service.ts',
        find: '    // the time that statement returns; the second one catches the token that rotation issued.\n    await sessions.revokeFamily(familyId, clock.now());\n',
        replace: '    // the time that statement returns; the second one catches the token that rotation issued.\n',
      },
    ],
    tests: ['tests/integration/session-guards.test.ts'],
  },
  {
    name: 'sessions: cookies: the access-token cookie is readable by scripts',
    file: 'adapters/http/cookies.ts',
    find: "res.cookie(ACCESS_COOKIE, session.accessToken, { ...base(policy), httpOnly: true,",
    replace: "res.cookie(ACCESS_COOKIE, session.accessToken, { ...base(policy), httpOnly: false,",
    tests: ['tests/integration/auth.test.ts'],
  },
  {
    name: 'sessions: cookies: the refresh-token cookie is readable by scripts and sent to every path',
    file: 'adapters/http/cookies.ts',
    find: "res.cookie(REFRESH_COOKIE, session.refreshToken, { ...base(policy), httpOnly: true, path: '/api',",
    replace: "res.cookie(REFRESH_COOKIE, session.refreshToken, { ...base(policy), httpOnly: false, path: '/',",
    tests: ['tests/integration/auth.test.ts'],
  },
  {
    name: 'sessions: cookies: cookies are sent cross-site without Secure (SameSite=None on plain HTTP)',
    file: 'adapters/http/cookies.ts',
    find: "policy.secure ? { secure: true, sameSite: 'none' } : { secure: false, sameSite: 'lax' };",
    replace: "policy.secure ? { secure: true, sameSite: 'none' } : { secure: false, sameSite: 'none' };",
    tests: ['tests/integration/auth.test.ts'],
  },
  {
    name: "sessions: tokens: a logged-out login's access token is judged by its claims (only a deleted user is refused)",
    file: 'core/use-cases/auth/authenticate.use-case.ts',
    find: "    if (login.state !== 'active') return null;\n    return { ...claims, sessionId: claims.sessionId, user: login.user };",
    replace: "    if (login.state === 'no-user') return null;\n    return { ...claims, sessionId: claims.sessionId, user: login.state === 'active' ? login.user : ({ id: claims.userId, role: claims.role } as never) };",
    tests: ['tests/integration/revocation.test.ts'],
  },
];
