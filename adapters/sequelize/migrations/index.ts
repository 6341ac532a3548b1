import type { Migration } from './migration.ts';
import { usersAndSessions } from './001-users-and-sessions.ts';
import { coins } from './002-coins.ts';
import { userEvents } from './006-user-events.ts';
import { uploads } from './005-uploads.ts';
import { templates } from './003-templates.ts';
import { queueAndOutbox } from './004-queue-and-outbox.ts';

import { jobsAndHistory } from './007-jobs-and-history.ts';
import { attemptsAndStaging } from './008-attempts-and-staging.ts';
import { fairQueue } from './009-fair-queue.ts';
import { userIdentities } from './010-user-identities.ts';
import { social } from './011-social.ts';
import { linkedDeductions } from './012-linked-deductions.ts';
import { queueTraceContext } from './013-queue-trace-context.ts';
import { apiKeys } from './015-api-keys.ts';
import { webhookSecrets } from './016-webhook-secrets.ts';
import { startDeadlines } from './017-start-deadlines.ts';
import { templateDrafts } from './018-template-drafts.ts';
import { uploadHashes } from './019-upload-hashes.ts';
import { webhookDeliveries } from './020-webhook-deliveries.ts';
import { templateTestRuns } from './021-template-test-runs.ts';
import { jobQueueTurns } from './022-job-queue-turns.ts';
import { jobEngineServers } from './023-job-engine-servers.ts';
import { jobRetryAt } from './024-job-retry-at.ts';
import { jobFitChoices } from './025-job-fit-choices.ts';
import { passwordResets } from './026-password-resets.ts';
import { accountDeletions } from './027-account-deletions.ts';
import { emailChanges } from './028-email-changes.ts';

/** Every migration, in order. Append new ones; never edit one that has shipped. */
export const MIGRATIONS: Migration[] = [usersAndSessions, coins, templates, queueAndOutbox, uploads, userEvents, jobsAndHistory, attemptsAndStaging, fairQueue, userIdentities, social, linkedDeductions, queueTraceContext, apiKeys, webhookSecrets, startDeadlines, templateDrafts, uploadHashes, webhookDeliveries, templateTestRuns, jobQueueTurns, jobEngineServers, jobRetryAt, jobFitChoices, passwordResets, accountDeletions, emailChanges];
