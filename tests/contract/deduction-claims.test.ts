import { BACKENDS, openBackend } from '../support/backends.ts';
import { deductionClaimsContract } from './deduction-claims.contract.ts';

for (const backend of BACKENDS) deductionClaimsContract(backend, () => openBackend(backend));
