import { BACKENDS, openBackend } from '../support/backends.ts';
import { sessionRepositoryContract } from './session-repository.contract.ts';

for (const backend of BACKENDS) sessionRepositoryContract(backend, () => openBackend(backend));
