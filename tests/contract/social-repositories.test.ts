import { BACKENDS, openBackend } from '../support/backends.ts';
import { socialRepositoriesContract } from './social-repositories.contract.ts';

for (const backend of BACKENDS) socialRepositoriesContract(backend, () => openBackend(backend));
