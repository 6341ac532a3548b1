/**
 * Backpressure (ADR 037) through the real application: with QUEUE_MAX_DEPTH jobs queued, POST /generate answers
 * 429 with Retry-After from the queue head's run estimate, before any coin moves: no charge, no ledger row, no job.
 */
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { DATABASES } from '../support/databases.ts';
import type { ParameterMappingItem } from '../../core/domain/parameter-map.ts';
import { colorMap } from '../support/generation-harness.ts';
import { addTemplate, pastSuccess, RAW_COST, schedulingApp, submitRaw } from '../support/scheduling-app.ts';
import type { TestClient } from '../support/test-client.ts';

const balanceOf = async (user: TestClient): Promise<number> => (await user.get('/auth/profile')).body.coinBalance;
const ledgerOf = async (user: TestClient) => (await user.get('/coin/transactions?limit=100')).body.items as { amount: number; reason: string; relatedEntityId: string | null }[];

for (const db of DATABASES) {
  test(`[${db}] a full queue answers 429 with Retry-After from the head's run estimate, and no coin moves`, async (t) => {
    const { app, user, userId } = await schedulingApp(t, db, { QUEUE_MAX_DEPTH: '2' });
    // Known history: raw jobs (no template) that ran 4 s, 7.2 s and 9 s: median 7.2 s, so Retry-After 8.
    const past = Date.now() - 3600_000;
    for (const [i, ms] of [4_000, 9_000, 7_200].entries()) await pastSuccess(app, userId, ms, new Date(past + i * 60_000));

    for (let i = 0; i < 2; i++) t.is((await submitRaw(user)).status, 202);
    t.is(await balanceOf(user), 100 - 2 * RAW_COST);
    const ledgerBefore = await ledgerOf(user);

    const refused = await submitRaw(user);
    t.is(refused.status, 429);
    t.is(refused.headers.get('retry-after'), '8');
    t.deepEqual(refused.body, { statusCode: 429, error: 'Too Many Requests', message: 'The queue is full (2 jobs waiting); submit again later' });
    t.is(await balanceOf(user), 100 - 2 * RAW_COST, 'nothing charged');
    t.deepEqual(await ledgerOf(user), ledgerBefore, 'no ledger row');
    t.is((await user.get('/generate')).body.total, 2 + 3, 'no job created (the two queued and the three of the history)');

    // The seed's client order: a deduction linked to the refused request is not claimed; it comes back at once (API.md §5).
    const requestId = randomUUID();
    t.is((await user.post('/coin/deduct', { amount: RAW_COST, reason: 'image_generation', relatedEntityId: requestId })).status, 200);
    const linked = await submitRaw(user, { requestId });
    t.is(linked.status, 429);
    t.is(await balanceOf(user), 100 - 2 * RAW_COST);
    t.is((await user.get(`/generate/${requestId}`)).status, 404);

    // One job leaves the queue: there is room again.
    const [first] = (await user.get('/generate')).body.items.filter((job: { status: string }) => job.status === 'queued');
    t.is((await user.post(`/generate/${first.id}/cancel`)).status, 200);
    t.is((await submitRaw(user)).status, 202);
  });

  test(`[${db}] the head's run estimate is by the values it chose: Retry-After from the jobs that made its choices`, async (t) => {
    const { app, user, userId } = await schedulingApp(t, db, { QUEUE_MAX_DEPTH: '1' });
    const size: ParameterMappingItem = { key: 'size', type: 'enum', node_id: '1', input_name: 'width', options: [8, 16], default: 8 };
    const template = await addTemplate(app, 1, { ...colorMap(), size });
    // 8-px jobs took 2 s, 16-px ones 30 s: over the template, 2, 2, 30: 2 s.
    const past = Date.now() - 3600_000;
    for (const [i, [width, ms]] of ([[8, 2_000], [16, 30_000], [8, 2_000]] as const).entries()) await pastSuccess(app, userId, ms, new Date(past + i * 60_000), template, undefined, JSON.stringify({ size: width }));
    t.is((await user.post('/generate', { templateId: template, parameters: { color: 1, size: 16 } })).status, 202);
    const refused = await user.post('/generate', { templateId: template, parameters: { color: 1, size: 8 } });
    t.is(refused.status, 429);
    t.is(refused.headers.get('retry-after'), '30', "the head is a 16-px job: 30 s, not the template's 2 s");
  });

  test(`[${db}] with nothing learned yet a full queue asks for 10 s`, async (t) => {
    const { user } = await schedulingApp(t, db, { QUEUE_MAX_DEPTH: '1' });
    t.is((await submitRaw(user)).status, 202);
    const refused = await submitRaw(user);
    t.is(refused.status, 429);
    t.is(refused.headers.get('retry-after'), '10');
  });
}
