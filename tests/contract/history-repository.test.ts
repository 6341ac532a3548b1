import { BACKENDS, openBackend } from '../support/backends.ts';
import { historyRepositoryContract } from './history-repository.contract.ts';

for (const backend of BACKENDS) historyRepositoryContract(backend, () => openBackend(backend));
