import { BACKENDS, openBackend } from '../support/backends.ts';
import { jobRepositoryContract } from './job-repository.contract.ts';

for (const backend of BACKENDS) jobRepositoryContract(backend, () => openBackend(backend));
