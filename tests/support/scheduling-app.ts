import { randomUUID } from 'node:crypto';
import type { ExecutionContext } from 'ava';
import { resolve, TOKENS } from '../../bootstrap/tokens.ts';
import type { ParameterMap } from '../../core/domain/parameter-map.ts';
import type { JobRepository } from '../../core/ports/job-repository.port.ts';
import type { TestDatabase } from './databases.ts';
import { colorMap, imageWorkflow } from './generation-harness.ts';
import { startTestApp, type TestApp } from './test-app.ts';
import type { TestClient } from './test-client.ts';

/** Raw workflows cost this much in the scheduling tests' app. */
export const RAW_COST = 3;

/**
 * The real application with the api role only (no worker: every job stays queued until a test moves it), raw
 * workflows open to users at RAW_COST, and a signed-up user with the sign-up bonus.
 */
export async function schedulingApp(t: ExecutionContext, db: TestDatabase, env: Record<string, string> = {}): Promise<{ app: TestApp; user: TestClient; userId: string }> {
  const app = await startTestApp(db, { ROLES: 'api', ALLOW_RAW_WORKFLOWS: 'all', RAW_WORKFLOW_COST: String(RAW_COST), SIGNUP_BONUS_COINS: '100', ...env });
  t.teardown(() => app.close());
  const user = app.client();
  await user.signUp();
  const profile = await user.get('/auth/profile');
  return { app, user, userId: profile.body.id };
}

/** The app's repositories (to set up a known history). */
export const reposOf = (app: TestApp) => resolve(app.app.container, TOKENS.Repositories);

/** A small raw workflow that matches no template of addTemplate (its SaveImage prefix, an unmapped input, differs). */
const rawWorkflow = () => {
  const workflow = imageWorkflow(Math.floor(Math.random() * 0xffffff));
  workflow['2']!.inputs.filename_prefix = 'raw';
  return workflow;
};

/** POST /generate of a small raw workflow, with extra body fields. */
export const submitRaw = (user: TestClient, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  user.post('/generate', { workflow: rawWorkflow(), ...extra }, headers);

/**
 * A job of `userId` that ran `runMs` and succeeded at `finishedAt` (history the estimates learn from), in the app's
 * repository or a given one; on engine server `server` when given, with choices `fitChoices` (ADR 050).
 */
export async function pastSuccess(where: TestApp | JobRepository, userId: string, runMs: number, finishedAt: Date, templateId: string | null = null, server?: number, fitChoices = ''): Promise<void> {
  const jobs = 'app' in where ? reposOf(where).jobs : where;
  const id = randomUUID();
  const startedAt = new Date(finishedAt.getTime() - runMs);
  const created = await jobs.create({ id, userId, templateId, templateVersion: null, status: 'queued', progress: { value: 0, max: 1 }, statusText: '', workflow: imageWorkflow(), usedParameters: {}, imageRefs: [], outputType: 'image', paidCoins: 0, testRun: false, startDeadline: null, queueTurn: 1, fitChoices, createdAt: startedAt });
  if (!created) throw new Error('history job not created');
  if (!(await jobs.transition(id, { to: 'running', runId: randomUUID(), changes: { startedAt } }, startedAt))) throw new Error('history job not started');
  if (!(await jobs.transition(id, { to: 'succeeded', changes: { finishedAt, ...(server === undefined ? {} : { engineServer: server }) } }, finishedAt))) throw new Error('history job not finished');
}

/** An active text-to-image template with a colour parameter, written straight to the repository. */
export async function addTemplate(app: TestApp, cost: number, parameterMap: ParameterMap = colorMap()): Promise<string> {
  const id = randomUUID();
  const at = new Date();
  const created = await reposOf(app).templates.create({ id, name: `template ${id}`, description: null, category: 'text-to-image', workflow: imageWorkflow(), parameterMap, cost, outputType: 'image', isActive: true, version: 1, publishedAt: at, createdAt: at, updatedAt: at });
  if (!created) throw new Error('template not created');
  return id;
}
