import type { Container } from 'inversify';
import type { Config } from '../config.ts';
import { bindApiKeys } from './api-keys.module.ts';
import { bindAuth } from './auth.module.ts';
import { bindCoins } from './coins.module.ts';
import { bindTemplates } from './templates.module.ts';
import { bindEvents } from './events.module.ts';
import { bindStorage } from './storage.module.ts';
import { bindQueue } from './queue.module.ts';
import { bindGeneration } from './generation.module.ts';
import { bindDiagnostics } from './diagnostics.module.ts';
import { bindAccountDeletion } from './account-deletion.module.ts';
import { bindAdminConsole } from './admin-console.module.ts';
import { bindMetrics } from './metrics.module.ts';
import { bindOidc } from './oidc.module.ts';
import { bindChat } from './chat.module.ts';
import { bindSocial } from './social.module.ts';
import { bindWebhooks } from './webhooks.module.ts';
import { bindHealthProbes } from './health.module.ts';
import { resolve, resolveAll, TOKENS } from '../tokens.ts';

/** Every feature module, in one place: a feature that is not listed here is not bound. */
export function bindFeatures(container: Container, config: Readonly<Config>): void {
  // First: the probe listener starts before, and stops after, every part it reports on.
  bindHealthProbes(container, config);
  // First: its listener starts before the other parts (a slow start can be watched) and stops after them.
  bindMetrics(container, config);
  bindAuth(container, config);
  bindApiKeys(container, config);
  bindStorage(container, config);
  bindQueue(container, config);
  bindCoins(container, config);
  bindTemplates(container, config);
  bindEvents(container, config);
  const generation = bindGeneration(container, config);
  bindAdminConsole(container, config, generation);
  bindAccountDeletion(container, config, generation);
  bindDiagnostics(container, config);
  bindChat(container, config);
  bindSocial(container, config);
  bindWebhooks(container, config);
  // After every other module's routes: GET /auth/:provider takes any word under /auth.
  bindOidc(container, config);
  // Last: starts after every part it runs tasks of, and stops first.
  container.bind(TOKENS.Lifecycle).toDynamicValue(() => {
    const scheduler = resolve(container, TOKENS.Scheduler);
    const tasks = container.isBound(TOKENS.ScheduledTasks) ? resolveAll(container, TOKENS.ScheduledTasks).flat() : [];
    for (const task of tasks) scheduler.add(task);
    return scheduler;
  });
}
