import { BACKENDS, openBackend } from '../support/backends.ts';
import { templateRepositoryContract } from './template-repository.contract.ts';

for (const backend of BACKENDS) templateRepositoryContract(backend, () => openBackend(backend));
