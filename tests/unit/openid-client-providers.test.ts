import test from 'ava';
import { OpenIdClientProviders } from '../../adapters/openid/openid-client-providers.ts';
import { startOidcProvider } from '../support/oidc-test-provider.ts';
import { freePort } from '../support/test-app.ts';

// Discovery is kept once it succeeds, but a failed one must not be: a provider that was down when the first login
// started would otherwise refuse every login until the API restarts.
test('a failed discovery is tried again on the next login, which succeeds once the provider is up', async (t) => {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const redirectUri = 'http://127.0.0.1:1/api/v1/auth/acme/callback';
  const providers = new OpenIdClientProviders({
    providers: [{ name: 'acme', issuer, clientId: 'media-gen-test', clientSecret: 'a-client-secret-for-the-test-provider', scopes: ['openid', 'email'] }],
    redirectUri: () => redirectUri,
    timeoutMs: 5000,
  });
  await t.throwsAsync(providers.begin('acme'), undefined, 'nobody serves the issuer yet');
  const idp = await startOidcProvider([redirectUri], port);
  t.teardown(() => idp.close());
  const started = await providers.begin('acme');
  const url = new URL(started.url);
  t.is(url.origin, issuer);
  t.is(url.searchParams.get('state'), started.state);
  t.is(url.searchParams.get('code_challenge_method'), 'S256');
});
