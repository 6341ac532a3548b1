import { BACKENDS, openBackend } from '../support/backends.ts';
import { stagedOutputsContract } from './staged-outputs.contract.ts';

for (const backend of BACKENDS) stagedOutputsContract(backend, () => openBackend(backend));
