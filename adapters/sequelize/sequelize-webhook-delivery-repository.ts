import { DataTypes, Op, type Model, type Sequelize } from 'sequelize';
import { WEBHOOK_EVENTS, type WebhookEvent, type WebhookSubscription } from '../../core/domain/webhook-event.ts';
import type { WebhookAttemptRecord, WebhookDelivery, WebhookDeliveryRepository, WebhookDeliveryStatus } from '../../core/ports/webhook-delivery-repository.port.ts';
import { asRow, asRows, defineOnce, type RowModel } from './models.ts';
import type { SqlScope } from './sql-scope.ts';

interface SubscriptionRow {
  job_id: string;
  user_id: string;
  url: string;
  events: string;
  created_at: Date;
}

interface DeliveryRow {
  id: string;
  job_id: string;
  user_id: string;
  url: string;
  event: string;
  payload: string;
  status: string;
  attempts: number;
  first_attempt_at: Date | null;
  next_attempt_at: Date | null;
  claimed_by: string | null;
  claim_until: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  updated_at: Date;
}

const date = (allowNull: boolean) => ({ type: DataTypes.DATE(3), allowNull });

const subscriptionModel = (sequelize: Sequelize): RowModel<SubscriptionRow> =>
  defineOnce(sequelize, 'JobWebhook', () =>
    sequelize.define<Model<SubscriptionRow, SubscriptionRow>>(
      'JobWebhook',
      {
        job_id: { type: DataTypes.UUID, primaryKey: true },
        user_id: { type: DataTypes.UUID, allowNull: false },
        url: { type: DataTypes.STRING(2048), allowNull: false },
        events: { type: DataTypes.STRING(64), allowNull: false },
        created_at: date(false),
      },
      { tableName: 'job_webhooks' },
    ),
  );

const deliveryModel = (sequelize: Sequelize): RowModel<DeliveryRow> =>
  defineOnce(sequelize, 'WebhookDelivery', () =>
    sequelize.define<Model<DeliveryRow, DeliveryRow>>(
      'WebhookDelivery',
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        job_id: { type: DataTypes.UUID, allowNull: false },
        user_id: { type: DataTypes.UUID, allowNull: false },
        url: { type: DataTypes.STRING(2048), allowNull: false },
        event: { type: DataTypes.STRING(16), allowNull: false },
        payload: { type: DataTypes.TEXT, allowNull: false },
        status: { type: DataTypes.STRING(16), allowNull: false },
        attempts: { type: DataTypes.INTEGER, allowNull: false },
        first_attempt_at: date(true),
        next_attempt_at: date(true),
        claimed_by: { type: DataTypes.STRING(64), allowNull: true },
        claim_until: date(true),
        last_status_code: { type: DataTypes.INTEGER, allowNull: true },
        last_error: { type: DataTypes.STRING(512), allowNull: true },
        created_at: date(false),
        updated_at: date(false),
      },
      { tableName: 'webhook_deliveries' },
    ),
  );

const maybeDate = (value: Date | string | null): Date | null => (value === null ? null : new Date(value));
const events = (text: string): WebhookEvent[] => WEBHOOK_EVENTS.filter((event) => text.split(',').includes(event));

const toDelivery = (row: DeliveryRow): WebhookDelivery => ({
  id: row.id,
  jobId: row.job_id,
  userId: row.user_id,
  url: row.url,
  event: row.event as WebhookEvent,
  payload: row.payload,
  status: row.status as WebhookDeliveryStatus,
  attempts: row.attempts,
  firstAttemptAt: maybeDate(row.first_attempt_at),
  nextAttemptAt: maybeDate(row.next_attempt_at),
  lastStatusCode: row.last_status_code,
  lastError: row.last_error,
  createdAt: new Date(row.created_at),
  updatedAt: new Date(row.updated_at),
});

type Subscription = (WebhookSubscription & { userId: string }) | null;

export class SequelizeWebhookDeliveryRepository implements WebhookDeliveryRepository {
  /**
   * Within one transaction, a job's subscription as read already: a job's move asks once per event it records
   * (a success records `output` and `completed`), and a subscription never changes once its job exists.
   */
  private readonly subscriptions = new Map<string, Subscription>();

  constructor(private readonly scope: SqlScope) {}

  private get deliveries(): RowModel<DeliveryRow> {
    return deliveryModel(this.scope.sequelize);
  }

  async subscribe(jobId: string, userId: string, subscription: WebhookSubscription, at: Date): Promise<void> {
    await this.scope.write((s) =>
      subscriptionModel(s.sequelize).create({ job_id: jobId, user_id: userId, url: subscription.url, events: subscription.events.join(','), created_at: at }, s.options),
    );
    this.subscriptions.delete(jobId);
  }

  /** Asked in every move of every job, most of which have no webhook: a plain statement (a model read costs several times more on SQLite; see `selectRows`). */
  async subscriptionOf(jobId: string): Promise<Subscription> {
    if (this.scope.inTransaction && this.subscriptions.has(jobId)) return this.subscriptions.get(jobId)!;
    const [row] = await this.scope.read<Pick<SubscriptionRow, 'user_id' | 'url' | 'events'>>('SELECT user_id, url, events FROM job_webhooks WHERE job_id = ?', [jobId]);
    const found: Subscription = row ? { userId: row.user_id, url: row.url, events: events(row.events) } : null;
    if (this.scope.inTransaction) this.subscriptions.set(jobId, found);
    return found;
  }

  async add(delivery: WebhookDelivery): Promise<void> {
    await this.scope.write((s) =>
      deliveryModel(s.sequelize).create(
        {
          id: delivery.id,
          job_id: delivery.jobId,
          user_id: delivery.userId,
          url: delivery.url,
          event: delivery.event,
          payload: delivery.payload,
          status: delivery.status,
          attempts: delivery.attempts,
          first_attempt_at: delivery.firstAttemptAt,
          next_attempt_at: delivery.nextAttemptAt,
          claimed_by: null,
          claim_until: null,
          last_status_code: delivery.lastStatusCode,
          last_error: delivery.lastError,
          created_at: delivery.createdAt,
          updated_at: delivery.updatedAt,
        },
        s.options,
      ),
    );
  }

  async claimDue(now: Date, claimer: string, claimUntil: Date, limit: number): Promise<WebhookDelivery[]> {
    const due = { status: 'pending', next_attempt_at: { [Op.lte]: now }, [Op.or]: [{ claim_until: null }, { claim_until: { [Op.lte]: now } }] };
    const candidates = asRows<DeliveryRow>(
      await this.deliveries.findAll({ where: due, order: [['next_attempt_at', 'ASC']], limit, attributes: ['id'], ...this.scope.options }),
    );
    const claimed: WebhookDelivery[] = [];
    for (const { id } of candidates) {
      // The conditional update is the claim: a candidate another worker took meanwhile no longer matches `due`.
      const [changed] = await this.scope.write((s) => deliveryModel(s.sequelize).update({ claimed_by: claimer, claim_until: claimUntil }, { where: { id, ...due }, ...s.options }));
      if (changed !== 1) continue;
      const row = await this.deliveries.findByPk(id, this.scope.options);
      if (row) claimed.push(toDelivery(asRow(row)));
    }
    return claimed;
  }

  async record(id: string, claimer: string, attempt: WebhookAttemptRecord): Promise<boolean> {
    const [changed] = await this.scope.write((s) =>
      deliveryModel(s.sequelize).update(
        {
          status: attempt.status,
          attempts: attempt.attempts,
          first_attempt_at: attempt.firstAttemptAt,
          next_attempt_at: attempt.nextAttemptAt,
          last_status_code: attempt.lastStatusCode,
          last_error: attempt.lastError === null ? null : attempt.lastError.slice(0, 512),
          claimed_by: null,
          claim_until: null,
          updated_at: attempt.at,
        },
        { where: { id, claimed_by: claimer }, ...s.options },
      ),
    );
    return changed === 1;
  }

  async listForJob(jobId: string): Promise<WebhookDelivery[]> {
    const rows = await this.deliveries.findAll({ where: { job_id: jobId }, order: [['created_at', 'ASC'], ['id', 'ASC']], ...this.scope.options });
    return asRows<DeliveryRow>(rows).map(toDelivery);
  }

  async redeliver(jobId: string, id: string, at: Date): Promise<boolean> {
    const [changed] = await this.scope.write((s) =>
      deliveryModel(s.sequelize).update(
        { status: 'pending', attempts: 0, first_attempt_at: null, next_attempt_at: at, claimed_by: null, claim_until: null, updated_at: at },
        { where: { id, job_id: jobId }, ...s.options },
      ),
    );
    return changed === 1;
  }
}
