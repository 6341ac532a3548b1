import type { Mutation } from '../mutation.ts';

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
    name: 'auth: a revoked session closes only the sockets of the token ids it names',
    file: 'adapters/ws/ws-gateway.ts',
    find: '(notice.sessionId !== null && client.sessionId === notice.sessionId) || ',
    replace: '',
    tests: ['tests/integration/session-guards.test.ts'],
  },
];
