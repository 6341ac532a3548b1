import type { AuditEntry } from '../../core/domain/audit.ts';
import { offsetOf, pageOf, type Page, type PageRequest } from '../../core/domain/pagination.ts';
import type { AuditLog } from '../../core/ports/audit-log.port.ts';
import type { MemoryStore } from './memory-store.ts';

export class MemoryAuditLog implements AuditLog {
  private readonly entries;

  constructor(store: MemoryStore) {
    this.entries = store.table<AuditEntry>('audit_log');
  }

  async record(entry: AuditEntry): Promise<void> {
    this.entries.set(entry.id, structuredClone(entry));
  }

  async list(request: PageRequest): Promise<Page<AuditEntry>> {
    // Newest first; among equal times, the later insert first (as the SQL adapter's order does by time).
    const all = [...this.entries.values()].reverse().sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
    const start = offsetOf(request);
    return pageOf(all.slice(start, start + request.limit).map((entry) => structuredClone(entry)), request, all.length);
  }
}
