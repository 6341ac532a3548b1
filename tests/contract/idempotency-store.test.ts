import { BACKENDS, openBackend } from '../support/backends.ts';
import { idempotencyStoreContract } from './idempotency-store.contract.ts';

for (const backend of BACKENDS) idempotencyStoreContract(backend, () => openBackend(backend));
