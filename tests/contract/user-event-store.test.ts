import { BACKENDS, openBackend } from '../support/backends.ts';
import { userEventStoreContract } from './user-event-store.contract.ts';

for (const backend of BACKENDS) userEventStoreContract(backend, () => openBackend(backend));
