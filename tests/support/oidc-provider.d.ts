// oidc-provider ships no types; the little the tests use of it.
declare module 'oidc-provider' {
  import type { Server } from 'node:http';

  interface ProviderAccount {
    accountId: string;
    claims(): Promise<Record<string, unknown>>;
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown> & { findAccount?(ctx: unknown, sub: string): Promise<ProviderAccount | undefined> });
    listen(port: number, host: string, callback: () => void): Server;
  }
}
