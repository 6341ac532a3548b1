import { randomBytes } from 'node:crypto';

/** A Standard Webhooks signing secret: `whsec_` and 32 random bytes in base64 (the spec asks for 24 to 64). */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;
