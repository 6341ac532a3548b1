import { BACKENDS, openCoinBackend } from './coin-backends.ts';
import { idempotencyStoreContract } from './idempotency-store.contract.ts';

for (const backend of BACKENDS) {
  idempotencyStoreContract(backend, async () => {
    const opened = await openCoinBackend(backend);
    return { ...opened, store: opened.idempotency };
  });
}
