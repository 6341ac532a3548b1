import type { AuditEntry } from '../domain/audit.ts';
import type { Page, PageRequest } from '../domain/pagination.ts';

export interface AuditLog {
  /** Call inside the unit of work of the change it records, so both commit or neither does. */
  record(entry: AuditEntry): Promise<void>;
  /** Newest first. */
  list(request: PageRequest): Promise<Page<AuditEntry>>;
}
