import { BACKENDS, openBackend } from '../support/backends.ts';
import { identityRepositoryContract } from './identity-repository.contract.ts';

for (const backend of BACKENDS) identityRepositoryContract(backend, () => openBackend(backend));
