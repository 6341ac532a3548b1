import { BACKENDS, openBackend } from '../support/backends.ts';
import { apiKeyRepositoryContract } from './api-key-repository.contract.ts';

for (const backend of BACKENDS) apiKeyRepositoryContract(backend, () => openBackend(backend));
