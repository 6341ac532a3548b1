import { BACKENDS, openBackend } from '../support/backends.ts';
import { uploadRepositoryContract } from './upload-repository.contract.ts';

for (const backend of BACKENDS) uploadRepositoryContract(backend, () => openBackend(backend));
