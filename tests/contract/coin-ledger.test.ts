import { BACKENDS, openBackend } from '../support/backends.ts';
import { coinLedgerContract } from './coin-ledger.contract.ts';

for (const backend of BACKENDS) coinLedgerContract(backend, () => openBackend(backend));
