import { BACKENDS, openBackend } from '../support/backends.ts';
import { socialConnectionRepositoryContract } from './social-connection-repository.contract.ts';

for (const backend of BACKENDS) socialConnectionRepositoryContract(backend, () => openBackend(backend));
