import { BACKENDS, openBackend } from '../support/backends.ts';
import { unitOfWorkContract } from './unit-of-work.contract.ts';

for (const backend of BACKENDS) unitOfWorkContract(backend, () => openBackend(backend));
