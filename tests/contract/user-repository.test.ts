import { BACKENDS, openBackend } from '../support/backends.ts';
import { userRepositoryContract } from './user-repository.contract.ts';

for (const backend of BACKENDS) userRepositoryContract(backend, () => openBackend(backend));
