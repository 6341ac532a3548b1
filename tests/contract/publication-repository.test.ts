import { BACKENDS, openBackend } from '../support/backends.ts';
import { publicationRepositoryContract } from './publication-repository.contract.ts';

for (const backend of BACKENDS) publicationRepositoryContract(backend, () => openBackend(backend));
