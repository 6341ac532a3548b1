import { awsCredentials, type AwsCredentials } from './aws.ts';
import type { Reader } from './reader.ts';

export type QueueConfig =
  | { driver: 'db' }
  | { driver: 'rabbitmq'; amqpUrl: string; /** Names the exchanges and queues (AMQP_PREFIX). */ prefix: string }
  | {
      driver: 'sqs';
      queueUrl: string;
      region: string;
      endpoint?: string;
      /** SQS_DLQ_URL; without it, the queue's RedrivePolicy names the dead-letter queue. */
      deadLetterQueueUrl?: string;
      waitTimeSeconds: number;
      credentials?: AwsCredentials;
    };

/** QUEUE_DRIVER: db (default), rabbitmq (AMQP_URL, AMQP_PREFIX) or sqs (SQS_*, AWS_*). */
export function readQueue(read: Reader): QueueConfig {
  const queueDriver = read.oneOf('QUEUE_DRIVER', 'db', ['db', 'rabbitmq', 'sqs'] as const);
  let queue: QueueConfig;
  if (queueDriver === 'rabbitmq') {
    queue = { driver: 'rabbitmq', amqpUrl: read.required('AMQP_URL', 'when QUEUE_DRIVER=rabbitmq'), prefix: read.string('AMQP_PREFIX', 'media-gen') };
    if (!/^[A-Za-z0-9_.-]{1,100}$/.test(queue.prefix)) read.problems.push('AMQP_PREFIX may hold only letters, digits, "_", "-" and "." (at most 100)');
    if (queue.amqpUrl) read.url('AMQP_URL', queue.amqpUrl, ['amqp:', 'amqps:']);
  } else if (queueDriver === 'sqs') {
    queue = {
      driver: 'sqs',
      queueUrl: read.required('SQS_QUEUE_URL', 'when QUEUE_DRIVER=sqs'),
      region: read.required('AWS_REGION', 'when QUEUE_DRIVER=sqs'),
      ...(read.raw('SQS_ENDPOINT') ? { endpoint: read.raw('SQS_ENDPOINT')! } : {}),
      ...(read.raw('SQS_DLQ_URL') ? { deadLetterQueueUrl: read.raw('SQS_DLQ_URL')! } : {}),
      waitTimeSeconds: read.int('SQS_WAIT_SECONDS', 10, 0, 20),
      ...awsCredentials(read),
    };
    for (const name of ['SQS_QUEUE_URL', 'SQS_ENDPOINT', 'SQS_DLQ_URL']) {
      const value = read.raw(name);
      if (value) read.url(name, value, ['http:', 'https:']);
    }
  } else {
    queue = { driver: 'db' };
  }
  return queue;
}
