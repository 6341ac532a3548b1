import { BACKENDS, openBackend } from '../support/backends.ts';
import { outboxContract } from './outbox.contract.ts';

for (const backend of BACKENDS) outboxContract(backend, () => openBackend(backend));
