import { entriesOn, type Mutation } from '../mutation.ts';

/**
 * The in-memory outbox (adapters/memory/memory-outbox.ts), held to the same contract as the SQL one
 * (tests/contract/outbox.contract.ts): every queued message is published, once, in order.
 */
const file = 'adapters/memory/memory-outbox.ts';
const tests = ['tests/contract/outbox.test.ts'];
const entry = entriesOn('memory outbox', file, tests);

const relay = entriesOn('outbox relay', 'core/use-cases/queue/relay-outbox.use-case.ts', ['tests/unit/relay-outbox.test.ts']);

export const MUTATIONS: Mutation[] = [
  // core/use-cases/queue/relay-outbox.use-case.ts (tests/unit/relay-outbox.test.ts)
  relay('a batch size left unset leases one entry a round', 'const batchSize = this.deps.batchSize ?? 100;', 'const batchSize = this.deps.batchSize ?? 1;'),
  relay('a lease left unset lasts no time', 'const leaseMs = (this.deps.leaseSeconds ?? 30) * 1000;', 'const leaseMs = (this.deps.leaseSeconds ?? 0) * 1000;'),
  relay('the relay stops after one round', '      if (batch.length === 0) return published;', '      if (batch.length >= 0) return published + batch.length;'),
  relay('an entry is published under the wrong message id (repeats are not dropped)', 'await queue.publish({ ...entry.message, messageId: entry.id });', 'await queue.publish({ ...entry.message });'),
  relay('an entry whose lease ran out counts as published', 'if (await outbox.markPublished(entry.id, token, clock.now())) published += 1;', 'await outbox.markPublished(entry.id, token, clock.now());\n        if (true as boolean) published += 1;'),
  entry('an entry added twice overwrites the first', "    if (this.rows.has(entry.id)) throw new Error(`outbox entry ${entry.id} already exists`);\n", ''),
  entry('the message kept by reference (a later change of the caller reaches it)', '      message: JSON.stringify(entry.message),', '      message: entry.message as unknown as string,'),
  {
    name: 'sql outbox: entries of one instant not leased by id',
    file: 'adapters/sequelize/sequelize-outbox.ts',
    find: 'AND (lease_until IS NULL OR lease_until <= :now) ORDER BY created_at ASC, id ASC LIMIT',
    replace: 'AND (lease_until IS NULL OR lease_until <= :now) ORDER BY created_at ASC, id DESC LIMIT',
    tests,
  },
  entry('a published entry leased again', 'row.publishedAt === null && (row.leaseUntil === null || row.leaseUntil <= now)', '(row.leaseUntil === null || row.leaseUntil <= now)'),
  entry('an entry under a live lease leased again', 'row.publishedAt === null && (row.leaseUntil === null || row.leaseUntil <= now)', 'row.publishedAt === null'),
  entry('an expired lease never taken over', 'row.publishedAt === null && (row.leaseUntil === null || row.leaseUntil <= now)', 'row.publishedAt === null && row.leaseUntil === null'),
  entry('entries leased out of order', '      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))\n', ''),
  entry('entries of one instant not leased by id', '|| (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)', ''),
  entry('more entries leased than asked', '      .slice(0, Math.max(0, max));', ';'),
  entry('an entry marked published twice', "    if (!row || row.publishedAt !== null || row.leaseToken !== token) return false;", '    if (!row || row.leaseToken !== token) return false;'),
  entry('an entry marked published under another lease', "    if (!row || row.publishedAt !== null || row.leaseToken !== token) return false;", '    if (!row || row.publishedAt !== null) return false;'),
  entry('an unpublished entry purged', '      if (row.publishedAt !== null && row.publishedAt < before) {', '      if (row.publishedAt === null || row.publishedAt < before) {'),
  entry('a recently published entry purged', '      if (row.publishedAt !== null && row.publishedAt < before) {', '      if (row.publishedAt !== null) {'),
  entry('no notification after the adding transaction commits', '    this.afterCommit(() => this.signal.notify());\n', ''),
];

/** The queue message catalogue (core/domain/messages.ts) and the admin view of a message (core/domain/queue-view.ts). */
const MESSAGES = 'core/domain/messages.ts';
const VIEW = 'core/domain/queue-view.ts';
const unit = ['tests/unit/queue-messages.test.ts'];
MUTATIONS.push(
  { name: 'messages: a generation message without its fairness turn', file: MESSAGES, find: '  fairnessTurn: job.queueTurn,\n', replace: '', tests: unit },
  { name: 'messages: a generation job id that is not a UUID taken', file: MESSAGES, find: 'return isUuid(jobId) ? jobId.toLowerCase() : null;', replace: 'return typeof jobId === "string" ? jobId.toLowerCase() : null;', tests: unit },
  { name: 'messages: a generation job id not lowercased', file: MESSAGES, find: 'return isUuid(jobId) ? jobId.toLowerCase() : null;', replace: 'return isUuid(jobId) ? jobId : null;', tests: unit },
  { name: 'messages: a publish body naming two platforms taken by its first', file: MESSAGES, find: 'Array.isArray(value.platforms) && value.platforms.length === 1 ?', replace: 'Array.isArray(value.platforms) ?', tests: unit },
  { name: 'messages: a publish body without a valid output id taken', file: MESSAGES, find: '  if (!platform || !isUuid(value.outputId) || !isUuid(value.userId) || !isUuid(value.attemptId)) return null;', replace: '  if (!platform || !isUuid(value.userId) || !isUuid(value.attemptId)) return null;', tests: unit },
  { name: 'messages: a publish body without a valid user id taken', file: MESSAGES, find: '  if (!platform || !isUuid(value.outputId) || !isUuid(value.userId) || !isUuid(value.attemptId)) return null;', replace: '  if (!platform || !isUuid(value.outputId) || !isUuid(value.attemptId)) return null;', tests: unit },
  { name: 'messages: a publish body without a valid attempt id taken', file: MESSAGES, find: '  if (!platform || !isUuid(value.outputId) || !isUuid(value.userId) || !isUuid(value.attemptId)) return null;', replace: '  if (!platform || !isUuid(value.outputId) || !isUuid(value.userId)) return null;', tests: unit },
  { name: 'queue view: the job id read from a message that is not a generation', file: VIEW, find: "jobId: message.attributes['TaskType'] === 'generation' ? stringField(message.body, 'jobId') : null,", replace: "jobId: stringField(message.body, 'jobId'),", tests: unit },
  { name: 'queue view: the body summary not cut', file: VIEW, find: 'summary: json.length > SUMMARY_CHARS ? `${json.slice(0, SUMMARY_CHARS - 1)}…` : json,', replace: 'summary: json,', tests: unit },
  { name: 'queue view: a body of exactly the limit cut', file: VIEW, find: 'summary: json.length > SUMMARY_CHARS ?', replace: 'summary: json.length >= SUMMARY_CHARS ?', tests: unit },
);

/** The operators' test message (core/use-cases/diagnostics/publish-test-message.use-case.ts): it must never start real work. */
const DIAGNOSTIC = 'core/use-cases/diagnostics/publish-test-message.use-case.ts';
const diagnosticTests = ['tests/unit/publish-test-message.test.ts'];
MUTATIONS.push(
  { name: 'test message: a task type workers handle accepted', file: DIAGNOSTIC, find: '    if ((TASK_TYPES as readonly string[]).includes(taskType)) {', replace: '    if (false) {', tests: diagnosticTests },
  { name: 'test message: an unknown attribute accepted', file: DIAGNOSTIC, find: '        if (!ATTRIBUTE_NAMES.includes(name)) problems.push(', replace: '        if (false) problems.push(', tests: diagnosticTests },
  { name: 'test message: an attribute over 64 characters accepted', file: DIAGNOSTIC, find: "value.length === 0 || value.length > 64) problems.push(", replace: "value.length === 0) problems.push(", tests: diagnosticTests },
  { name: 'test message: an empty attribute accepted', file: DIAGNOSTIC, find: "value.length === 0 || value.length > 64) problems.push(", replace: "value.length > 64) problems.push(", tests: diagnosticTests },
  { name: 'test message: attributes given as a list accepted', file: DIAGNOSTIC, find: "    if (typeof attributes !== 'object' || Array.isArray(attributes)) {", replace: "    if (typeof attributes !== 'object') {", tests: diagnosticTests },
  { name: 'test message: published despite its problems', file: DIAGNOSTIC, find: '    if (problems.length > 0) return validationFailed(problems);\n', replace: '', tests: diagnosticTests },
);
