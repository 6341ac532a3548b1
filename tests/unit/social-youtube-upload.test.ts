import test from 'ava';
import nock from 'nock';
import { YouTubePlatform } from '../../adapters/social/youtube-platform.ts';
import type { PublishRequest } from '../../core/ports/social-platform.port.ts';
import { GOOGLE_APIS, sessionUri, UPLOAD_PATH, youtubeVideo } from '../support/social-platforms.ts';

/** YouTube's resumable upload as the adapter drives it, against nock: where the access token may go, and how a saved session resumes. */

test.before(() => nock.disableNetConnect());
test.afterEach.always(() => nock.cleanAll());
test.after.always(() => nock.enableNetConnect());

const SIZE = 10;
async function* bytesFrom(start: number): AsyncGenerator<Uint8Array> {
  yield new Uint8Array(SIZE - start);
}

const youtube = new YouTubePlatform({ clientId: 'c', clientSecret: 's', timeoutMs: 2000 });
const request = (remoteRef: string | null, refs: string[]): PublishRequest => ({
  accessToken: 'ya29.secret',
  file: { sizeBytes: SIZE, contentType: 'video/mp4', fileName: 'a.mp4', read: async (start) => bytesFrom(start) },
  title: 'T',
  description: '',
  privacy: 'private',
  remoteRef,
  saveRemoteRef: async (ref) => void refs.push(ref),
});
const initiation = () => nock(GOOGLE_APIS).post(UPLOAD_PATH).query({ uploadType: 'resumable', part: 'snippet,status' });
const session = (id: string) => nock(GOOGLE_APIS).put(UPLOAD_PATH).query({ uploadType: 'resumable', upload_id: id });

// Pins that the bearer token is only ever sent to an https session: an upload URL in the clear is refused before anything goes there.
test.serial('an upload session that is not https is refused: the token and the file go nowhere', async (t) => {
  initiation().reply(200, '', { Location: 'http://uploads.example/upload?upload_id=plain' });
  const plain = nock('http://uploads.example').put('/upload').query(true).times(20).reply(201, youtubeVideo('leaked'));
  const refs: string[] = [];
  const refused = await t.throwsAsync(youtube.publish(request(null, refs)));
  t.is((refused as { kind?: string }).kind, 'rejected');
  t.regex(refused!.message, /^YouTube upload session: HTTP 200/);
  t.false(plain.isDone(), 'nothing was sent to the http URL');
  t.deepEqual(refs, []);
});

// Pins the resume of an expired session: a new session is started (and saved), the file goes into it once.
test.serial('a saved session that expired is replaced by a new one: one video', async (t) => {
  session('old').reply(404, 'Not Found');
  initiation().reply(200, '', { Location: sessionUri('new') });
  const sent: number[] = [];
  session('new').reply(async (req: Request) => (sent.push((await req.arrayBuffer()).byteLength), [201, youtubeVideo('fresh')]));
  const refs: string[] = [];
  t.deepEqual(await youtube.publish(request(JSON.stringify({ session: sessionUri('old') }), refs)), { url: 'https://www.youtube.com/watch?v=fresh' });
  t.deepEqual(refs, [JSON.stringify({ session: sessionUri('new') })]);
  t.deepEqual(sent, [SIZE]);
  t.true(nock.isDone());
});

// Pins the bound on resumes within one attempt: a session that never completes is left to a retry after five rounds.
test.serial('a session that keeps answering "incomplete" is left to a retry after five rounds', async (t) => {
  const puts = session('stuck').times(10).reply(308, '', { Range: 'bytes=0-3' });
  const stuck = await t.throwsAsync(youtube.publish(request(JSON.stringify({ session: sessionUri('stuck') }), [])));
  t.is((stuck as { kind?: string }).kind, 'transient');
  t.is(stuck!.message, 'YouTube upload still incomplete after 5 resumes');
  t.true(puts.isDone());
});
