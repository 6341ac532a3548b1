import test from 'ava';
import nock from 'nock';
import { YouTubePlatform } from '../../adapters/social/youtube-platform.ts';
import { GOOGLE_OAUTH, sessionUri, youtubeVideo, errorKind as kindOf, savedYoutubeSession as savedSession, tenBytePublishRequest as request, youtubeSession as session, youtubeStart as initiation } from '../support/social-platforms.ts';

/** Guards of the YouTube adapter that social-platform-guards.test.ts and social-youtube-upload.test.ts leave undefended. YouTube is a nock scope. */

test.before(() => nock.disableNetConnect());
test.afterEach.always(() => nock.cleanAll());
test.after.always(() => nock.enableNetConnect());

const SIZE = 10;
const youtube = new YouTubePlatform({ clientId: 'c', clientSecret: 's', timeoutMs: 2000 });


// Pins the resume offset: a saved session holding bytes 0-3 gets bytes 4-9 (no byte twice), one holding nothing (308 without Range) gets the whole file.
test.serial('YouTube: a resumed session gets exactly the bytes it lacks', async (t) => {
  for (const [range, expected] of [
    ['bytes=0-3', { range: `bytes 4-9/${SIZE}`, body: '456789' }],
    [null, { range: null, body: '0123456789' }],
  ] as const) {
    session('r').reply(308, '', range ? { Range: range } : {});
    const sent: { range: string | null; body: string }[] = [];
    session('r').reply(async (req: Request) => (sent.push({ range: req.headers.get('content-range'), body: await req.text() }), [201, youtubeVideo('v')]));
    t.deepEqual(await youtube.publish(request([], { remoteRef: savedSession('r') })), { url: 'https://www.youtube.com/watch?v=v' }, String(range));
    t.deepEqual(sent, [expected], String(range));
    t.true(nock.isDone());
    nock.cleanAll();
  }
});

// Pins that YouTube's 200 (as well as 201) means the video exists: a saved session answering 200 sends nothing again; an upload answered 200 is published.
test.serial('YouTube: a 200 from a saved session or from the upload is the finished video', async (t) => {
  session('done').once().reply(200, youtubeVideo('kept'));
  t.deepEqual(await youtube.publish(request([], { remoteRef: savedSession('done') })), { url: 'https://www.youtube.com/watch?v=kept' });
  t.true(nock.isDone());
  initiation().reply(200, '', { Location: sessionUri('n') });
  session('n').once().reply(200, youtubeVideo('new'));
  t.deepEqual(await youtube.publish(request([])), { url: 'https://www.youtube.com/watch?v=new' });
  t.true(nock.isDone());
});

// Pins that a saved session whose status cannot be read (503) is a transient failure: no byte is sent and no second session is started.
test.serial('YouTube: a saved session whose status answers 503 fails the attempt; nothing is sent or started', async (t) => {
  session('busy').once().reply(503, { error: { message: 'Backend Error' } });
  const started = initiation().reply(200, '', { Location: sessionUri('second') });
  const refs: string[] = [];
  const failed = await t.throwsAsync(youtube.publish(request(refs, { remoteRef: savedSession('busy') })));
  t.is(kindOf(failed), 'transient');
  t.regex(failed!.message, /^YouTube upload status: HTTP 503/);
  t.false(started.isDone());
  t.deepEqual(refs, []);
});

// Pins a refused token refresh: Google's 400 invalid_grant is a failure (the user connects again), never tokens parsed from the error.
test.serial('YouTube: a token refresh Google refuses is a failure', async (t) => {
  nock(GOOGLE_OAUTH).post('/token').reply(400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.', access_token: 'from-an-error' });
  const failed = await t.throwsAsync(youtube.refresh('r'));
  t.is(kindOf(failed), 'unauthorized');
  t.regex(failed!.message, /^Google token refresh: HTTP 400/);
});

// Pins the consent request: offline access with a fresh consent (else Google sends no refresh token after the first connection) and a PKCE S256 challenge.
test.serial('YouTube: the authorization asks for offline access, fresh consent and an S256 challenge', (t) => {
  const start = youtube.begin({ redirectUri: 'https://app.example/connect/youtube/callback' });
  const url = new URL(start.url);
  t.is(url.searchParams.get('access_type'), 'offline');
  t.is(url.searchParams.get('prompt'), 'consent');
  t.is(url.searchParams.get('code_challenge_method'), 'S256');
  t.is(url.searchParams.get('state'), start.state);
  t.is(typeof start.codeVerifier, 'string');
});
