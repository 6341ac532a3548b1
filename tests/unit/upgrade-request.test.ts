import type { IncomingMessage } from 'node:http';
import test from 'ava';
import { normalizeOrigin, pathOf, tokenOf } from '../../adapters/ws/upgrade-request.ts';

/** tokenOf reads only the headers of an upgrade request. */
const upgrade = (headers: Record<string, string>): IncomingMessage => ({ headers }) as unknown as IncomingMessage;

test('the access token comes from the Bearer header first, then the access_token cookie, never the query', (t) => {
  t.is(tokenOf(upgrade({ authorization: 'Bearer from-header', cookie: 'access_token=from-cookie' })), 'from-header');
  t.is(tokenOf(upgrade({ cookie: 'access_token=from-cookie' })), 'from-cookie');
  t.is(tokenOf(upgrade({ cookie: 'access_token="quoted%20value"' })), 'quoted value');
  t.is(tokenOf(upgrade({})), null);
  t.is(tokenOf(upgrade({ authorization: 'Bearer ' })), null, 'an empty Bearer is no token');
});

// Browsers send every cookie of the site: the token is the access_token cookie's value, not the first cookie's
// (the XSRF token, say) nor that of a cookie whose name merely contains it.
test('only the cookie named access_token is the token, wherever it stands among others', (t) => {
  t.is(tokenOf(upgrade({ cookie: 'XSRF-TOKEN=xsrf; access_token=the-token; theme=dark' })), 'the-token');
  t.is(tokenOf(upgrade({ cookie: 'XSRF-TOKEN=xsrf; theme=dark' })), null, 'no access_token among them');
  t.is(tokenOf(upgrade({ cookie: 'old_access_token=stale; access_token_v0=other' })), null, 'names that contain it');
  t.is(tokenOf(upgrade({ cookie: 'noise; access_token=after-a-bare-word' })), 'after-a-bare-word');
});

test('an origin is normalized; an opaque origin (file:, data:, the literal null) is none at all', (t) => {
  t.is(normalizeOrigin('HTTPS://APP.example.com/'), 'https://app.example.com');
  t.is(normalizeOrigin('http://app.example.com:80'), 'http://app.example.com');
  // Their URL origin is the string "null": taken as is, a CORS_ORIGINS entry like file:///x would let every file: page in.
  t.is(normalizeOrigin('file:///home/user/page.html'), null);
  t.is(normalizeOrigin('data:text/html,hi'), null);
  t.is(normalizeOrigin('null'), null);
  t.is(normalizeOrigin('not a url'), null);
});

test('the path of an upgrade leaves out its query and fragment', (t) => {
  t.is(pathOf('/api/v1/ws?since=3'), '/api/v1/ws');
  t.is(pathOf('/api/v1/ws#x'), '/api/v1/ws');
  t.is(pathOf('/api/v1/ws'), '/api/v1/ws');
  t.is(pathOf(undefined), '/');
});
