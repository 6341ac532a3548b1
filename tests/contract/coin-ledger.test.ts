import { BACKENDS, openCoinBackend } from './coin-backends.ts';
import { coinLedgerContract } from './coin-ledger.contract.ts';

for (const backend of BACKENDS) coinLedgerContract(backend, () => openCoinBackend(backend));
