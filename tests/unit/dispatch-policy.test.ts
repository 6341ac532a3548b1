import test from 'ava';
import { chooseJob, type DispatchChoice, type DispatchInput, type DispatchPolicyName, type WaitingJob } from '../../core/domain/dispatch-policy.ts';
import { jobModelFiles, jobRequirements } from '../../core/domain/object-info.ts';

const job = (id: string, userId: string, models: string[], order: number, skippedSince: number | null = null): WaitingJob => ({ id, userId, models, order, skippedSince });

interface Row {
  name: string;
  policy: DispatchPolicyName;
  input: DispatchInput;
  choice: DispatchChoice | null;
}

const never = new Map<string, number>();
const base = { loaded: [] as string[], lastServed: never, now: 10_000, maxSkipMs: 2_000 };

// Scenario → the job the free server takes, why, and whom that passes over. Written out, not derived.
const TABLE: Row[] = [
  { name: 'nothing waits', policy: 'fair', input: { ...base, waiting: [] }, choice: null },
  {
    name: 'shortest-queue: the oldest, whatever its user or model',
    policy: 'shortest-queue',
    input: { ...base, loaded: ['y.ckpt'], waiting: [job('b1', 'u2', ['y.ckpt'], 2), job('a1', 'u1', ['x.ckpt'], 1)] },
    choice: { id: 'a1', reason: 'arrival', skipped: [] },
  },
  {
    name: 'fair, nobody served yet, nothing loaded: the oldest job of the user whose oldest job came first',
    policy: 'fair',
    input: { ...base, waiting: [job('a1', 'u1', ['x.ckpt'], 0), job('a2', 'u1', ['x.ckpt'], 1), job('b1', 'u2', ['y.ckpt'], 2)] },
    choice: { id: 'a1', reason: 'fair', skipped: [] },
  },
  {
    name: 'fair: a user never served goes before one served (a burst does not starve others)',
    policy: 'fair',
    input: { ...base, lastServed: new Map([['u1', 5]]), waiting: [job('a1', 'u1', ['x.ckpt'], 0), job('a2', 'u1', ['x.ckpt'], 1), job('b1', 'u2', ['x.ckpt'], 2)] },
    choice: { id: 'b1', reason: 'fair', skipped: [] },
  },
  {
    name: 'fair: the user served least recently goes first',
    policy: 'fair',
    input: { ...base, lastServed: new Map([['u1', 3], ['u2', 4]]), waiting: [job('b1', 'u2', [], 0), job('a1', 'u1', [], 1)] },
    choice: { id: 'a1', reason: 'fair', skipped: [] },
  },
  {
    name: 'fair: loaded models win over the fair turn, passing the head over',
    policy: 'fair',
    input: { ...base, loaded: ['y.ckpt'], lastServed: new Map([['u1', 1], ['u2', 2]]), waiting: [job('a1', 'u1', ['x.ckpt'], 0), job('b1', 'u2', ['y.ckpt'], 1)] },
    choice: { id: 'b1', reason: 'loaded', skipped: ['a1'] },
  },
  {
    name: "fair: within the user's jobs, the one with loaded models, passing its older job over",
    policy: 'fair',
    input: { ...base, loaded: ['y.ckpt'], waiting: [job('a1', 'u1', ['x.ckpt'], 0), job('a2', 'u1', ['y.ckpt'], 1)] },
    choice: { id: 'a2', reason: 'loaded', skipped: ['a1'] },
  },
  {
    name: 'fair: the first user in turn with loaded models; each user ahead has its head passed over',
    policy: 'fair',
    input: {
      ...base,
      loaded: ['y.ckpt'],
      lastServed: new Map([['u1', 1], ['u2', 2], ['u3', 3]]),
      waiting: [job('a1', 'u1', ['x.ckpt'], 0), job('b1', 'u2', ['z.ckpt'], 1), job('c1', 'u3', ['y.ckpt'], 2), job('c2', 'u3', ['y.ckpt'], 3)],
    },
    choice: { id: 'c1', reason: 'loaded', skipped: ['a1', 'b1'] },
  },
  {
    name: 'fair: the fair head with loaded models passes nobody over',
    policy: 'fair',
    input: { ...base, loaded: ['x.ckpt'], waiting: [job('a1', 'u1', ['x.ckpt'], 0), job('b1', 'u2', ['x.ckpt'], 1)] },
    choice: { id: 'a1', reason: 'fair', skipped: [] },
  },
  {
    name: 'fair: a job that loads no model needs nothing loaded',
    policy: 'fair',
    input: { ...base, loaded: ['y.ckpt'], waiting: [job('a1', 'u1', ['x.ckpt'], 0), job('b1', 'u2', [], 1)] },
    choice: { id: 'b1', reason: 'loaded', skipped: ['a1'] },
  },
  {
    name: 'fair: every model of the job must be loaded (a checkpoint and a LoRA)',
    policy: 'fair',
    input: { ...base, loaded: ['y.ckpt'], waiting: [job('a1', 'u1', ['x.ckpt'], 0), job('b1', 'u2', ['l.safetensors', 'y.ckpt'], 1)] },
    choice: { id: 'a1', reason: 'fair', skipped: [] },
  },
  {
    name: 'fair: when no waiting job has its models loaded, the fair head (a switch is due anyway)',
    policy: 'fair',
    input: { ...base, loaded: ['z.ckpt'], lastServed: new Map([['u2', 7]]), waiting: [job('b1', 'u2', ['y.ckpt'], 0), job('a1', 'u1', ['x.ckpt'], 1)] },
    choice: { id: 'a1', reason: 'fair', skipped: [] },
  },
  {
    name: 'fair: a job passed over for the bound goes first, even before loaded models',
    policy: 'fair',
    input: { ...base, loaded: ['y.ckpt'], now: 3_000, waiting: [job('a1', 'u1', ['x.ckpt'], 0, 1_000), job('b1', 'u2', ['y.ckpt'], 1)] },
    choice: { id: 'a1', reason: 'overdue', skipped: [] },
  },
  {
    name: 'fair: a job passed over for less than the bound may still be passed over',
    policy: 'fair',
    input: { ...base, loaded: ['y.ckpt'], now: 3_000, waiting: [job('a1', 'u1', ['x.ckpt'], 0, 1_001), job('b1', 'u2', ['y.ckpt'], 1)] },
    choice: { id: 'b1', reason: 'loaded', skipped: ['a1'] },
  },
  {
    name: 'fair: of two overdue jobs, the one passed over first (not the older one)',
    policy: 'fair',
    input: { ...base, now: 9_000, waiting: [job('a1', 'u1', ['x.ckpt'], 0, 5_000), job('b1', 'u2', ['y.ckpt'], 1, 4_000), job('c1', 'u3', [], 2)] },
    choice: { id: 'b1', reason: 'overdue', skipped: [] },
  },
  {
    name: 'fair: overdue ties go to the older job',
    policy: 'fair',
    input: { ...base, now: 9_000, waiting: [job('b1', 'u2', ['y.ckpt'], 3, 4_000), job('a1', 'u1', ['x.ckpt'], 2, 4_000)] },
    choice: { id: 'a1', reason: 'overdue', skipped: [] },
  },
  {
    name: 'fair: a user never served goes first, even after an older burst of a served user',
    policy: 'fair',
    input: { ...base, loaded: [], lastServed: new Map([['u1', 1]]), waiting: [job('a2', 'u1', ['x.ckpt'], 4), job('a1', 'u1', ['y.ckpt'], 3), job('b1', 'u2', ['y.ckpt'], 5)] },
    choice: { id: 'b1', reason: 'fair', skipped: [] },
  },
];

for (const row of TABLE) {
  test(`dispatch policy: ${row.name}`, (t) => {
    t.deepEqual(chooseJob(row.policy, row.input), row.choice);
  });
}

test('a job’s model files are the *_name inputs of its loader nodes, sorted, once each; other combo choices are not models', (t) => {
  const workflow = {
    '1': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'sdxl.safetensors' } },
    '2': { class_type: 'LoraLoader', inputs: { lora_name: 'detail.safetensors', model: ['1', 0], clip: ['1', 1], strength_model: 1 } },
    '3': { class_type: 'KSampler', inputs: { sampler_name: 'euler', scheduler: 'normal', model: ['2', 0] } },
    '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'sdxl.safetensors' } },
    '5': { class_type: 'VAELoader', inputs: { vae_name: 'ae.safetensors' } },
    '6': { class_type: 'SaveImage', inputs: { filename_prefix: 'out' } },
  };
  t.deepEqual(jobModelFiles(jobRequirements(workflow)), ['ae.safetensors', 'detail.safetensors', 'sdxl.safetensors']);
  t.deepEqual(jobModelFiles(jobRequirements({ '1': { class_type: 'EmptyImage', inputs: { width: 8 } } })), []);
});
