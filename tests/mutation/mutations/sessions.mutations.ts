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
];
