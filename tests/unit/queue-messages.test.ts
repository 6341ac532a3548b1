import test from 'ava';
import { generationJobId, generationMessage, publishMessage, publishTarget } from '../../core/domain/messages.ts';
import { viewOfMessage, SUMMARY_CHARS } from '../../core/domain/queue-view.ts';

const JOB = '0A1B2C3D-0000-4000-8000-000000000001';
const USER = '0a1b2c3d-0000-4000-8000-000000000002';
const OUTPUT = '0a1b2c3d-0000-4000-8000-000000000003';
const ATTEMPT = '0a1b2c3d-0000-4000-8000-000000000004';

test('a generation message: the job id as message id, the owner as fairness key with its turn, the body API.md promises', (t) => {
  const message = generationMessage({ id: JOB, userId: USER, workflow: { '1': { class_type: 'X', inputs: {} } }, outputType: 'image', queueTurn: 7 }, 'prod');
  t.deepEqual(message, {
    taskType: 'generation',
    environment: 'prod',
    messageId: JOB,
    fairnessKey: USER,
    fairnessTurn: 7,
    body: { jobId: JOB, userId: USER, workflow: { '1': { class_type: 'X', inputs: {} } }, outputType: 'image' },
  });
});

test('the job id of a delivered generation body: a UUID, lowercased; anything else is none (the message goes dead)', (t) => {
  t.is(generationJobId({ jobId: JOB }), JOB.toLowerCase());
  for (const body of [null, undefined, 'text', 42, {}, { jobId: 'not-a-uuid' }, { jobId: 12 }, { job: JOB }]) t.is(generationJobId(body), null, JSON.stringify(body));
});

test('a publish message is one platform of one output, and reads back as its target', (t) => {
  const message = publishMessage({ outputId: OUTPUT, userId: USER, platform: 'YOUTUBE', attemptId: ATTEMPT }, 'prod');
  t.deepEqual(message, { taskType: 'publish', environment: 'prod', messageId: ATTEMPT, fairnessKey: USER, body: { outputId: OUTPUT, userId: USER, platforms: ['YOUTUBE'], attemptId: ATTEMPT } });
  t.deepEqual(publishTarget(message.body), { outputId: OUTPUT, userId: USER, platform: 'YOUTUBE', attemptId: ATTEMPT });
  t.deepEqual(publishTarget({ outputId: OUTPUT.toUpperCase(), userId: USER.toUpperCase(), platforms: ['youtube'], attemptId: ATTEMPT.toUpperCase() }), { outputId: OUTPUT, userId: USER, platform: 'YOUTUBE', attemptId: ATTEMPT }, 'ids lowercased, the platform read in any case');
});

test('a publish body missing a part, with a bad id, or naming no platform, an unknown one or two, is none', (t) => {
  const good = { outputId: OUTPUT, userId: USER, platforms: ['YOUTUBE'], attemptId: ATTEMPT };
  for (const body of [
    null,
    'text',
    { ...good, outputId: 'x' },
    { ...good, userId: undefined },
    { ...good, attemptId: 5 },
    { ...good, platforms: [] },
    { ...good, platforms: ['YOUTUBE', 'TIKTOK'] },
    { ...good, platforms: ['MYSPACE'] },
    { ...good, platforms: 'YOUTUBE' },
  ]) t.is(publishTarget(body), null, JSON.stringify(body));
});

test('the admin view of a queued message: attributes, job and owner where the body names them, the body cut short', (t) => {
  const view = viewOfMessage({ id: 'm1', attributes: { TaskType: 'generation', Environment: 'prod' }, body: { jobId: JOB, userId: USER, workflow: { text: 'x'.repeat(500) } } } as never);
  t.like(view, { id: 'm1', taskType: 'generation', environment: 'prod', jobId: JOB, userId: USER, reason: null });
  t.is(view.summary.length, SUMMARY_CHARS);
  t.true(view.summary.endsWith('…'));
  const dead = viewOfMessage({ id: 'm2', attributes: { TaskType: 'publish' }, body: { jobId: JOB }, reason: 'malformed' } as never);
  t.like(dead, { taskType: 'publish', environment: '', jobId: null, userId: null, summary: JSON.stringify({ jobId: JOB }), reason: 'malformed' }, "a jobId in a message that is not a generation is not the job's");
  t.is(viewOfMessage({ id: 'm3', attributes: {}, body: undefined } as never).summary, 'null');
  const exact = { s: 'y'.repeat(SUMMARY_CHARS - 8) };
  t.is(JSON.stringify(exact).length, SUMMARY_CHARS);
  t.is(viewOfMessage({ id: 'm4', attributes: {}, body: exact } as never).summary, JSON.stringify(exact), 'a body of exactly the limit is whole');
});
