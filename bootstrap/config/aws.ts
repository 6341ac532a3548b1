import type { Reader } from './reader.ts';

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/** Static AWS credentials when both halves are in the environment (S3 and SQS); otherwise the SDK finds its own. */
export function awsCredentials(read: Reader): { credentials?: AwsCredentials } {
  const accessKeyId = read.raw('AWS_ACCESS_KEY_ID');
  const secretAccessKey = read.raw('AWS_SECRET_ACCESS_KEY');
  if (!accessKeyId && !secretAccessKey) return {};
  if (!accessKeyId || !secretAccessKey) {
    read.problems.push('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY go together (or leave both unset to use a profile or role)');
    return {};
  }
  return { credentials: { accessKeyId, secretAccessKey } };
}
