import type { Server } from 'node:http';
import Provider from 'oidc-provider';
import { freePort } from './test-app.ts';

export interface TestAccount {
  email?: string;
  /** Some providers send the string "true" or "false". */
  email_verified?: boolean | string;
  name?: string;
}

export interface OidcTestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  accounts: Map<string, TestAccount>;
  /**
   * Plays the browser at the provider: opens the authorization URL, signs in as `accountId` and consents
   * through devInteractions (both forms post to /interaction/:uid), and returns the redirect back to us.
   */
  authorize(authorizationUrl: string, accountId: string): Promise<URL>;
  close(): Promise<void>;
}

/** oidc-provider in this process: one confidential client with these redirect URIs (on `port`, or a free one). */
export async function startOidcProvider(redirectUris: string[], port?: number): Promise<OidcTestProvider> {
  port ??= await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const accounts = new Map<string, TestAccount>();
  const clientId = 'media-gen-test';
  const clientSecret = 'a-client-secret-for-the-test-provider';
  const provider = new Provider(issuer, {
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: redirectUris, grant_types: ['authorization_code'], response_types: ['code'] }],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    features: { devInteractions: { enabled: true } },
    cookies: { keys: ['oidc-test-provider-cookie-key'] },
    async findAccount(_ctx, sub) {
      const account = accounts.get(sub);
      return account ? { accountId: sub, claims: async () => ({ sub, ...account }) } : undefined;
    },
  });
  const server: Server = await new Promise((resolve) => {
    const listening = provider.listen(port, '127.0.0.1', () => resolve(listening));
  });

  const authorize = (authorizationUrl: string, accountId: string) => authorizeAt(issuer, redirectUris, authorizationUrl, accountId);

  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    authorize,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Plays the browser at an oidc-provider with devInteractions at `issuer`: opens the authorization URL, signs in as
 * `accountId` and consents (both forms post to /interaction/:uid), and returns the redirect back to one of `redirectUris`.
 */
export async function authorizeAt(issuer: string, redirectUris: string[], authorizationUrl: string, accountId: string): Promise<URL> {
  const jar = new Map<string, string>();
  const send = async (url: string, init: RequestInit = {}) => {
    const response = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const cookie of response.headers.getSetCookie()) {
      const pair = cookie.split(';')[0]!;
      const index = pair.indexOf('=');
      jar.set(pair.slice(0, index), pair.slice(index + 1));
    }
    return response;
  };
  let response = await send(authorizationUrl);
  for (let step = 0; step < 12; step += 1) {
    const location = response.headers.get('location');
    if (!location) throw new Error(`the provider answered ${response.status} without a redirect: ${(await response.text()).slice(0, 500)}`);
    const next = new URL(location, issuer);
    if (redirectUris.some((uri) => next.href.startsWith(uri))) return next;
    const interaction = /^\/interaction\/([^/]+)$/.exec(next.pathname);
    if (!interaction) {
      response = await send(next.href);
      continue;
    }
    const page = await (await send(next.href)).text();
    const form: Record<string, string> = page.includes('name="login"') ? { prompt: 'login', login: accountId, password: 'any' } : { prompt: 'consent' };
    response = await send(next.href, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
  }
  throw new Error('the provider never redirected back');
}
