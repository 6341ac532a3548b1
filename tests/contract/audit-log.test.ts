import { BACKENDS, openBackend } from '../support/backends.ts';
import { auditLogContract } from './audit-log.contract.ts';

for (const backend of BACKENDS) auditLogContract(backend, () => openBackend(backend));
