import { BACKENDS, openBackend } from '../support/backends.ts';
import { linkedDeductionsContract } from './linked-deductions.contract.ts';

for (const backend of BACKENDS) linkedDeductionsContract(backend, () => openBackend(backend));
