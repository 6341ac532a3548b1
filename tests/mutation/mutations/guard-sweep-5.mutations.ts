import { entriesOn, type Mutation } from '../mutation.ts';

/**
 * The fifth guard sweep (2026-12-07): the conditions of statements, which `npm run mutation:unlisted` did not look at
 * before (it counted `if` lines only). Every line of a SQL `WHERE`/`AND` with a comparison, or of a Sequelize `where`,
 * that no entry's find covered (30 lines, all in adapters/sequelize/), had each of its conditions deleted or widened
 * once: a filter by owner, platform, version, state, environment, task type, visibility, lease or age. Listed (48):
 * 42 caught at once; the database consumer's poll without its state or its visibility condition (it read messages it
 * could not take, looked again at once and spun, and with enough done or dead rows ahead starved later messages), a
 * removal of one platform's connection that removed the user's others, and a publication request or read that
 * answered another platform's row of the same output, each caught by a new test; and the published entry of the
 * outbox, left out three times (the lease's candidates, its claim and its read), one entry deleting all three. Not
 * listed: the idempotency takeover's user condition (the claim's token, random per claim, already names one row).
 */

const AREA = 'guard sweep 5';
const S = 'adapters/sequelize/';
const outbox = entriesOn(AREA, `${S}sequelize-outbox.ts`, ['tests/contract/outbox.test.ts', 'tests/integration/queue.test.ts']);
const consumer = entriesOn(AREA, `${S}sequelize-queue-consumer.ts`, ['tests/integration/db-queue-consumer-guards.test.ts', 'tests/contract/message-queue.test.ts', 'tests/integration/queue-take-guard.test.ts', 'tests/integration/fairness.test.ts']);
const idem = entriesOn(AREA, `${S}sequelize-idempotency-store.ts`, ['tests/contract/idempotency-store.test.ts', 'tests/integration/coins.test.ts']);
const staged = entriesOn(AREA, `${S}sequelize-staged-outputs.ts`, ['tests/contract/staged-outputs.test.ts', 'tests/integration/worker-defects.test.ts']);
const events = entriesOn(AREA, `${S}sequelize-user-event-store.ts`, ['tests/contract/user-event-store.test.ts']);
const history = entriesOn(AREA, `${S}sequelize-history-repository.ts`, ['tests/contract/history-repository.test.ts', 'tests/integration/template-test-runs.test.ts']);
const jobs = entriesOn(AREA, `${S}sequelize-job-repository.ts`, ['tests/contract/job-repository.test.ts', 'tests/integration/queue-position.test.ts']);
const sessions = entriesOn(AREA, `${S}sequelize-session-repository.ts`, ['tests/contract/session-repository.test.ts', 'tests/integration/sequelize-audit.test.ts']);
const social = entriesOn(AREA, `${S}sequelize-social-connection-repository.ts`, ['tests/contract/social-connection-repository.test.ts', 'tests/contract/social-repositories.test.ts']);
const pubs = entriesOn(AREA, `${S}sequelize-publication-repository.ts`, ['tests/contract/social-repositories.test.ts', 'tests/contract/publication-repository.test.ts', 'tests/integration/social.test.ts']);
const templates = entriesOn(AREA, `${S}sequelize-template-repository.ts`, ['tests/contract/template-repository.test.ts', 'tests/integration/sequelize-audit.test.ts']);
const users = entriesOn(AREA, `${S}sequelize-user-repository.ts`, ['tests/contract/user-repository.test.ts']);
const hooks = entriesOn(AREA, `${S}sequelize-webhook-delivery-repository.ts`, ['tests/integration/webhook-deliveries.test.ts', 'tests/integration/webhooks.test.ts']);
const keys = entriesOn(AREA, `${S}sequelize-api-key-repository.ts`, ['tests/contract/api-key-repository.test.ts', 'tests/integration/api-keys.test.ts']);
const identities = entriesOn(AREA, `${S}sequelize-identity-repository.ts`, ['tests/contract/identity-repository.test.ts']);
const ledger = entriesOn(AREA, `${S}sequelize-coin-ledger.ts`, ['tests/contract/coin-ledger.test.ts', 'tests/integration/sequelize-audit.test.ts']);

export const MUTATIONS: Mutation[] = [
  outbox('a relay leases an entry another relay holds under a lease that has not expired', "{ lease_until: { [Op.lte]: now } }] });", "{ lease_until: { [Op.ne]: null } }] });"),
  outbox("the lease's candidates include entries leased to another relay and not expired", "AND (lease_until IS NULL OR lease_until <= :now) ORDER BY", "ORDER BY"),
  outbox('a lease hands out every entry leased under any token, not only its own', "FROM outbox WHERE lease_token = :token AND published_at IS NULL ORDER", "FROM outbox WHERE :token = :token AND published_at IS NULL ORDER"),
  outbox('markPublished marks an entry leased to another relay', "{ where: { id, lease_token: token, published_at: null }", "{ where: { id, published_at: null }"),
  outbox('markPublished marks an entry published already, again', "{ where: { id, lease_token: token, published_at: null }", "{ where: { id, lease_token: token }"),
  outbox('purgePublished deletes published entries of any age', "destroy({ where: { published_at: { [Op.lt]: before } }", "destroy({ where: { published_at: { [Op.ne]: null } }"),
  outbox('purgePublished deletes entries never published', "destroy({ where: { published_at: { [Op.lt]: before } }", "destroy({ where: { [Op.or]: [{ published_at: null }, { published_at: { [Op.lt]: before } }] }"),
  outbox(
    'a published entry is leased and published again (the candidates, the claim and the read of a lease each leave it out)',
    "SELECT id FROM outbox WHERE published_at IS NULL AND (lease_until",
    "SELECT id FROM outbox WHERE (lease_until",
    [
      { file: `${S}sequelize-outbox.ts`, find: "const free = (now: Date) => ({ published_at: null, [Op.or]", replace: "const free = (now: Date) => ({ [Op.or]" },
      { file: `${S}sequelize-outbox.ts`, find: "WHERE lease_token = :token AND published_at IS NULL ORDER", replace: "WHERE lease_token = :token ORDER" },
    ],
  ),
  consumer("the database consumer's poll reads done and dead messages, polls again at once, and starves later ones", "WHERE status = 'ready' AND environment = :environment AND task_type", "WHERE environment = :environment AND task_type"),
  consumer("the database consumer's poll takes another environment's messages", "WHERE status = 'ready' AND environment = :environment AND task_type", "WHERE status = 'ready' AND :environment = :environment AND task_type"),
  consumer("the database consumer's poll takes other task types", "AND task_type IN (:taskTypes) AND visible_at <= :now", "AND 'x' NOT IN (:taskTypes) AND visible_at <= :now"),
  consumer("the database consumer's poll reads messages not yet visible, and polls again at once while they wait", "AND task_type IN (:taskTypes) AND visible_at <= :now", "AND task_type IN (:taskTypes) AND :now = :now"),
  idem("an idempotency record is taken over from another claim's token", "          token: seen.token,\n", ""),
  idem('an idempotency record is taken over whether or not it completed since it was seen', "          completed_at: seen.completedAt === null ? { [Op.is]: null } : { [Op.not]: null },\n", ""),
  idem("an idempotency record is found under another user's key", "where: { user_id: userId, idem_key: key }", "where: { idem_key: key }"),
  staged("removing staged outputs removes every run's", "destroy({ where: { storage_key: { [Op.in]: [...storageKeys] } }", "destroy({ where: { storage_key: { [Op.notIn]: ['-'] } }"),
  events("a user's event seq bumps every user's counter", "UPDATE user_event_counters SET seq = seq + ? WHERE user_id = ? RETURNING seq', [count, userId]", "UPDATE user_event_counters SET seq = seq + ? WHERE ? IS NOT NULL RETURNING seq', [count, userId]"),
  events("a user's first event seq reads another user's counter", "'SELECT seq FROM user_event_counters WHERE user_id = ?'", "'SELECT seq FROM user_event_counters WHERE ? IS NOT NULL ORDER BY seq DESC'"),
  history("test-run outputs are listed in their administrator's history", "(SELECT id FROM generation_jobs WHERE test_run = 1)", "(SELECT id FROM generation_jobs WHERE test_run = 2)"),
  history('a history item is found for a user who does not own it', "where: { id, user_id: userId }, raw: true", "where: { id }, raw: true"),
  jobs('ETA run times count failed and cancelled runs', "       WHERE status = 'succeeded' AND started_at IS NOT NULL AND finished_at IS NOT NULL${templateId", "       WHERE status <> 'queued' AND started_at IS NOT NULL AND finished_at IS NOT NULL${templateId"),
  jobs("ETA run times of one template count every template's", "${templateId === null ? '' : ' AND template_id = ?'}", "${templateId === null ? '' : ' AND ? IS NOT NULL'}"),
  jobs('template stats time failed runs as run times', "         FROM windowed WHERE status = 'succeeded' AND started_at", "         FROM windowed WHERE status <> 'queued' AND started_at"),
  jobs('template stats count jobs from before their window', "WHERE template_id IS NOT NULL AND created_at >= :since", "WHERE template_id IS NOT NULL AND :since = :since"),
  jobs("a template's job count counts every template's jobs", "return this.jobs.count({ where: { template_id: templateId }", "return this.jobs.count({ where: {}"),
  jobs('the running work the ETA sums includes queued jobs', "FROM generation_jobs WHERE status = 'running'\n", "FROM generation_jobs WHERE status IN ('running', 'queued')\n"),
  sessions('a batch of login checks reads every family as revoked', "WHERE family_id IN ${inList(familyIds.length)} AND revoked_at IS NOT NULL", "WHERE family_id IN ${inList(familyIds.length)}"),
  social('walking connections repeats the row at the cursor', "{ user_id: after.userId, platform: { [Op.gt]: after.platform } }", "{ user_id: after.userId, platform: { [Op.gte]: after.platform } }"),
  social('a token refresh from a stale version is written', "{ where: { user_id: userId, platform, version: fromVersion }", "{ where: { user_id: userId, platform }"),
  social("removing one platform's connection removes the user's other connections", "await connectionModel(s.sequelize).destroy({ where: { user_id: userId, platform }", "await connectionModel(s.sequelize).destroy({ where: { user_id: userId }"),
  social("removing one platform's connection answers another platform's tokens", "findOne({ where: { user_id: userId, platform }, raw: true, ...(lock", "findOne({ where: { user_id: userId }, raw: true, ...(lock"),
  pubs("a publication request answers another platform's publication of the same output", "findOne({ where: { output_id: outputId, platform }, raw: true, ...lock", "findOne({ where: { output_id: outputId }, raw: true, ...lock"),
  pubs("a publication read answers another platform's publication of the same output", "findOne({ where: { output_id: outputId, platform }, raw: true, ...this.scope", "findOne({ where: { output_id: outputId }, raw: true, ...this.scope"),
  templates('a template version read answers another version', "findOne({ where: { template_id: templateId, version }", "findOne({ where: { template_id: templateId }"),
  users("setting a user's role sets every user's", "update({ role, updated_at: at }, { where: { id }", "update({ role, updated_at: at }, { where: {}"),
  hooks("a job's webhook subscription is read from another job", "'SELECT user_id, url, events FROM job_webhooks WHERE job_id = ?'", "'SELECT user_id, url, events FROM job_webhooks WHERE ? IS NOT NULL'"),
  identities("a user's linked identities list every user's", "      where: { user_id: userId },\n      order: [['created_at', 'ASC'], ['provider', 'ASC']],", "      where: {},\n      order: [['created_at', 'ASC'], ['provider', 'ASC']],"),
  ledger('a balance change for an unknown user is refused as insufficient, not as user_not_found', "await scope.read('SELECT 1 AS found FROM users WHERE id = ?', [entry.userId]);", "await scope.read('SELECT 1 AS found FROM users WHERE ? IS NOT NULL', [entry.userId]);"),
  keys('revoking an API key answers another key', "SELECT ${COLUMNS} FROM api_keys WHERE id = :id`, { id });", "SELECT ${COLUMNS} FROM api_keys WHERE :id = :id ORDER BY created_at DESC`, { id });"),
  jobs('a job read by id answers another job', "'SELECT * FROM generation_jobs WHERE id = ?', [id]", "'SELECT * FROM generation_jobs WHERE ? IS NOT NULL ORDER BY created_at DESC', [id]"),
  jobs("a job's move changes every job in the move's source states", "WHERE id = ? AND ${status}${fence.sql}", "WHERE ? IS NOT NULL AND ${status}${fence.sql}"),
  pubs("an output's publication list lists other outputs' publications", "findAll({ where: { output_id: outputId }, order:", "findAll({ where: {}, order:"),
  social("a user's connection list lists every user's connections", "findAll({ where: { user_id: userId }, order: [['platform', 'ASC']]", "findAll({ where: {}, order: [['platform', 'ASC']]"),
  users('a user read by id answers another user', "coin_balance, created_at, updated_at FROM users WHERE id = ? AND deleted_at IS NULL', [id]", "coin_balance, created_at, updated_at FROM users WHERE ? IS NOT NULL AND deleted_at IS NULL ORDER BY created_at DESC', [id]"),
  users('a user read by email answers another user', "findOne({ where: { email, deleted_at: null }, attributes: CREDENTIAL_ATTRIBUTES, raw: true", "findOne({ where: { deleted_at: null }, order: [['created_at', 'DESC']], attributes: CREDENTIAL_ATTRIBUTES, raw: true"),
  users('the user search lists users whose email and name do not contain the text', "Sequelize.where(Sequelize.col(column), Op.like,", "Sequelize.where(Sequelize.col(column), Op.notLike,"),
  sessions('a batch of login checks reads other users', "FROM users WHERE id IN ${inList(userIds.length)} AND deleted_at IS NULL`", "FROM users WHERE id NOT IN ${inList(userIds.length)} AND deleted_at IS NULL`"),
  ledger("a balance change moves every user's balance", "WHERE id = ?${guard}`;", "WHERE ? IS NOT NULL${guard}`;"),
];
