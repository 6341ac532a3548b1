import { entriesOn, type Mutation } from '../mutation.ts';

const ROUTES = 'adapters/http/routes/admin-console.routes.ts';
const CONSOLE_TEST = 'tests/integration/admin-console.test.ts';
const QUEUE_CONTRACT = 'tests/contract/message-queue.test.ts';

/** The admin-only check of one console route: its spec's `auth`, found by the path before it. */
const openRoute = (name: string, specStart: string): Mutation => ({
  name: `admin console: ${name} open to any user`,
  file: ROUTES,
  find: `${specStart}\n      tag: 'admin',\n      auth: 'admin',`,
  replace: `${specStart}\n      tag: 'admin',\n      auth: 'access',`,
  tests: [CONSOLE_TEST],
});

const settle = entriesOn('admin: settle dead letter', 'core/use-cases/admin/settle-dead-letter.use-case.ts', ['tests/unit/settle-dead-letter.test.ts']);

const adminJobs = entriesOn('admin jobs', 'core/use-cases/admin/list-all-jobs.use-case.ts', ['tests/unit/admin-jobs-and-webhook-log.test.ts']);
const webhookLog = entriesOn('webhook log', 'core/use-cases/webhooks/webhook-delivery-log.service.ts', ['tests/unit/admin-jobs-and-webhook-log.test.ts']);

const listUsers = entriesOn('admin users', 'core/use-cases/coins/list-users.use-case.ts', ['tests/unit/list-users.test.ts']);

export const MUTATIONS: Mutation[] = [
  listUsers('a bad page request is used', '    if (!request.ok) return request;\n', '    if (!request.ok) return ok({ items: [], page: 1, limit: 20, total: 0 });\n'),
  listUsers('a query that is no string is used', "if (input.q !== undefined && (typeof input.q !== 'string' || input.q.length > USER_QUERY_MAX)) {", "if (typeof input.q === 'string' && input.q.length > USER_QUERY_MAX) {"),
  listUsers('an over-long query is used', "|| input.q.length > USER_QUERY_MAX)) {", '|| input.q.length > USER_QUERY_MAX + 1)) {'),
  listUsers('a query is not trimmed', "? input.q.trim() : undefined;", '? input.q : undefined;'),
  listUsers('a blank query filters on spaces', "typeof input.q === 'string' && input.q.trim() !== '' ?", "typeof input.q === 'string' ?"),
  // core/use-cases/admin/list-all-jobs.use-case.ts and core/use-cases/webhooks/webhook-delivery-log.service.ts
  adminJobs('no status filter lists every status', "if (value === undefined || value === '') return ok(['queued', 'running']);", "if (value === undefined || value === '') return ok([...JOB_STATUSES]);"),
  adminJobs('a status filter that is no string crashes', "  if (typeof value !== 'string') return validationFailed([{ field: 'status', message: STATUS_PROBLEM }]);\n", '  if (typeof value !== \'string\') return ok([]);\n'),
  adminJobs('spaces around status names refuse them', "const names = value.split(',').map((name) => name.trim());", "const names = value.split(',');"),
  adminJobs('a repeated status is listed twice', 'return ok([...new Set(names)]);', 'return ok(names);'),
  adminJobs('a bad page request is used', '    if (!request.ok) return request;\n', '    if (!request.ok) return ok({ items: [], page: 1, limit: 20, total: 0 });\n'),
  adminJobs('an owner is looked up once per job, not once', 'const owners = [...new Set(page.items.map((job) => job.userId))];', 'const owners = page.items.map((job) => job.userId);'),
  webhookLog('a delivery id that is no UUID is asked of the repository', 'if (!isUuid(deliveryId) || !(await this.deps.deliveries.redeliver(', 'if (!(await this.deps.deliveries.redeliver('),
  webhookLog('a redelivery the repository refused answers success', '|| !(await this.deps.deliveries.redeliver(jobId, deliveryId, this.deps.clock.now()))) return fail(', ') return fail('),
  webhookLog('a redelivered delivery that cannot be listed answers nothing', "    if (!delivery) return fail('NOT_FOUND', 'Webhook delivery not found');\n    return ok(delivery);", '    return ok(delivery!);'),
  // core/use-cases/admin/settle-dead-letter.use-case.ts (tests/unit/settle-dead-letter.test.ts)
  settle('an empty or over-long id is asked of the queue', "    if (input.id.length === 0 || input.id.length > 128) return fail('NOT_FOUND', 'No such dead letter');\n", ''),
  settle('a 128-character id is refused unasked', 'input.id.length > 128) return fail(', 'input.id.length > 127) return fail('),
  settle('a discard redrives the message', "const done = input.action === 'redrive' ? await queue.redrive(input.id) : await queue.discard(input.id);", 'const done = await queue.redrive(input.id);'),
  settle('a discard is audited as a redrive', "action: input.action === 'redrive' ? ('queue.redrive' as const) : ('queue.discard' as const),", "action: 'queue.redrive' as const,"),
  settle('a user id that is no UUID is the audit target', 'targetUserId: isUuid(view?.userId) ? view.userId.toLowerCase() : null,', 'targetUserId: view?.userId ?? null,'),
  settle('the audit target keeps its upper case', 'targetUserId: isUuid(view?.userId) ? view.userId.toLowerCase() : null,', 'targetUserId: isUuid(view?.userId) ? view.userId : null,'),
  settle('a dead letter settled unseen crashes its audit', 'const view = seen ? viewOfMessage(seen) : null;', 'const view = viewOfMessage(seen!);'),
  settle('an unwritten audit entry is not logged', "      logger.error('dead letter settled but its audit entry was not written'", "      void ('dead letter settled but its audit entry was not written'"),
  settle('an unwritten audit entry is swallowed (the admin sees success)', '      throw error;\n    }\n    return ok({ id: input.id });', '    }\n    return ok({ id: input.id });'),
  openRoute('GET /admin/jobs', "path: '/admin/jobs',\n      summary: \"Every user's jobs in the given statuses (default queued,running), oldest first, with the owner's email\","),
  openRoute('POST /admin/jobs/:id/cancel', "path: '/admin/jobs/:id/cancel',\n      summary: \"Cancel any user's queued or running job, with the owner's refund; audit-logged\","),
  openRoute('GET /admin/queue', "path: '/admin/queue',\n      summary: 'The first waiting messages (a peek: on RabbitMQ and SQS it counts as a delivery) and their count per task type',"),
  openRoute('GET /admin/dead-letters', "path: '/admin/dead-letters',\n      summary: 'Dead-lettered messages, oldest first, with the reason where the queue kept it',"),
  {
    name: 'admin console: dead-letter redrive and discard open to any user',
    file: ROUTES,
    find: "{ method, path, summary, tag: 'admin', auth: 'admin',",
    replace: "{ method, path, summary, tag: 'admin', auth: 'access',",
    tests: [CONSOLE_TEST],
  },
  {
    name: 'admin cancel: an ended job is cancelled again (both state guards gone)',
    file: 'core/use-cases/generation/cancel-generation.use-case.ts',
    find: '  if (isFinished(job.status)) return finished(job);\n  const outcome',
    replace: '  const outcome',
    also: [{ file: 'core/use-cases/generation/cancel-generation.use-case.ts', find: '  if (!outcome.ended) return finished(outcome.job);', replace: '' }],
    tests: [CONSOLE_TEST],
  },
  {
    name: 'admin jobs: unknown status names let through',
    file: 'core/use-cases/admin/list-all-jobs.use-case.ts',
    find: "  if (!names.every((name): name is JobStatus => (JOB_STATUSES as readonly string[]).includes(name))) return validationFailed([{ field: 'status', message: STATUS_PROBLEM }]);",
    replace: '',
    tests: [CONSOLE_TEST],
  },
  {
    name: 'dead letters: a redrive or discard the queue refused answers success',
    file: 'core/use-cases/admin/settle-dead-letter.use-case.ts',
    find: "    if (!done) return fail('NOT_FOUND', 'No such dead letter');",
    replace: '',
    tests: [CONSOLE_TEST],
  },
  {
    name: 'database queue: redrive and discard act on a message that is not dead',
    file: 'adapters/sequelize/sequelize-message-queue.ts',
    find: "where: { message_id: id, status: 'dead' }",
    replace: 'where: { message_id: id }',
    tests: [QUEUE_CONTRACT],
  },
  {
    name: 'memory queue: redrive and discard act on a message that is not dead',
    file: 'adapters/memory/memory-message-queue.ts',
    find: "return row && row.status === 'dead' ? row : null;",
    replace: 'return row ?? null;',
    tests: [QUEUE_CONTRACT],
  },
  {
    name: 'memory queue: a redriven message keeps its attempt count',
    file: 'adapters/memory/memory-message-queue.ts',
    find: "Object.assign(row, { status: 'ready', attempts: 0,",
    replace: "Object.assign(row, { status: 'ready',",
    tests: [QUEUE_CONTRACT],
  },
  {
    name: 'RabbitMQ queue: redrive and discard take the first dead letter, whatever its id',
    file: 'adapters/rabbitmq/rabbit-message-queue.ts',
    find: '          if (message.properties.messageId !== id) continue;',
    replace: '',
    tests: [QUEUE_CONTRACT],
  },
  {
    name: 'SQS queue: redrive and discard take the first dead letter, whatever its id',
    file: 'adapters/sqs/sqs-message-queue.ts',
    find: 'const found = received.find((message) => toPeeked(message).id === id);',
    replace: 'const found = received[0];',
    tests: [QUEUE_CONTRACT],
  },
  {
    name: 'template stats: p95 one rank too high',
    file: 'adapters/sequelize/sequelize-job-repository.ts',
    find: 'MIN(CASE WHEN rn * 100 >= 95 * n THEN ms END) AS p95',
    replace: 'MIN(CASE WHEN rn * 100 > 95 * n THEN ms END) AS p95',
    tests: ['tests/contract/job-repository.test.ts'],
  },
  {
    name: 'template stats: jobs before the window counted',
    file: 'adapters/sequelize/sequelize-job-repository.ts',
    find: 'WHERE template_id IS NOT NULL AND created_at >= :since',
    replace: 'WHERE template_id IS NOT NULL',
    tests: ['tests/contract/job-repository.test.ts'],
  },
  {
    name: 'fleet: a server address left in its error',
    file: 'adapters/comfyui/comfy-fleet.ts',
    find: '.replaceAll(client.name, name);',
    replace: ';',
    tests: [CONSOLE_TEST],
  },
  openRoute('GET /admin/templates/stats', "path: '/admin/templates/stats',\n      summary: \"Per template: jobs of the last `hours` (default 24), failure rate, p50/p95 run time\","),
  openRoute('GET /admin/fleet', "path: '/admin/fleet',\n      summary: 'The engine servers: health, their running and waiting prompts, VRAM and models; and the jobs queued and running',"),
  {
    name: 'admin: a queue limit over INSPECT_MAX is read (on RabbitMQ and SQS each peek is a delivery)',
    file: 'core/use-cases/admin/inspect-queue.use-case.ts',
    find: 'if (!Number.isInteger(limit) || limit < 1 || limit > INSPECT_MAX) return',
    replace: 'if (!Number.isInteger(limit) || limit < 1) return',
    tests: [CONSOLE_TEST],
  },
  {
    name: 'admin: a queue limit below 1 is accepted',
    file: 'core/use-cases/admin/inspect-queue.use-case.ts',
    find: 'if (!Number.isInteger(limit) || limit < 1 || limit > INSPECT_MAX) return',
    replace: 'if (!Number.isInteger(limit) || limit > INSPECT_MAX) return',
    tests: [CONSOLE_TEST],
  },
  {
    name: 'admin: a queue limit that is not an integer is accepted',
    file: 'core/use-cases/admin/inspect-queue.use-case.ts',
    find: 'if (!Number.isInteger(limit) || limit < 1 || limit > INSPECT_MAX) return',
    replace: 'if (limit < 1 || limit > INSPECT_MAX) return',
    tests: [CONSOLE_TEST],
  },
  {
    name: 'admin: the queue view shows one message more than the limit',
    file: 'core/use-cases/admin/inspect-queue.use-case.ts',
    find: 'const messages = peeked.slice(0, limit.value).map(viewOfMessage);',
    replace: 'const messages = peeked.map(viewOfMessage);',
    tests: [CONSOLE_TEST],
  },
  {
    name: 'admin: a dead-letter redrive or discard is not audit-logged',
    file: 'core/use-cases/admin/settle-dead-letter.use-case.ts',
    find: '      await uow.run((tx) => tx.audit.record(entry));',
    replace: '      void uow;',
    tests: [CONSOLE_TEST],
  },
];

/** The admin's template statistics window (core/use-cases/admin/template-health.use-case.ts). */
const TEMPLATE_HEALTH = 'core/use-cases/admin/template-health.use-case.ts';
MUTATIONS.push(
  { name: 'template stats: no default window of 24 hours', file: TEMPLATE_HEALTH, find: "input.hours === '' ? 24 : Number(input.hours);", replace: "input.hours === '' ? 1 : Number(input.hours);", tests: [CONSOLE_TEST] },
  { name: 'template stats: a window of 0 hours accepted', file: TEMPLATE_HEALTH, find: 'if (!Number.isInteger(hours) || hours < 1 || hours > MAX_WINDOW_HOURS)', replace: 'if (!Number.isInteger(hours) || hours < 0 || hours > MAX_WINDOW_HOURS)', tests: [CONSOLE_TEST] },
  { name: 'template stats: a window over 90 days accepted', file: TEMPLATE_HEALTH, find: 'if (!Number.isInteger(hours) || hours < 1 || hours > MAX_WINDOW_HOURS)', replace: 'if (!Number.isInteger(hours) || hours < 1)', tests: [CONSOLE_TEST] },
  { name: 'template stats: the longest window refused', file: TEMPLATE_HEALTH, find: 'if (!Number.isInteger(hours) || hours < 1 || hours > MAX_WINDOW_HOURS)', replace: 'if (!Number.isInteger(hours) || hours < 1 || hours >= MAX_WINDOW_HOURS)', tests: [CONSOLE_TEST] },
  { name: 'template stats: a fractional window accepted', file: TEMPLATE_HEALTH, find: 'if (!Number.isInteger(hours) || hours < 1 || hours > MAX_WINDOW_HOURS)', replace: 'if (Number.isNaN(hours) || hours < 1 || hours > MAX_WINDOW_HOURS)', tests: [CONSOLE_TEST] },
  { name: 'template stats: the window not the hours asked', file: TEMPLATE_HEALTH, find: 'this.deps.clock.now().getTime() - hours * 3600_000', replace: 'this.deps.clock.now().getTime() - 24 * 3600_000', tests: [CONSOLE_TEST] },
);
