import type { AuditEntry } from '../../domain/audit.ts';
import { parsePageRequest, type Page } from '../../domain/pagination.ts';
import { ok, type Result } from '../../domain/result.ts';
import type { AuditLog } from '../../ports/audit-log.port.ts';

/** What administrators did, newest first. */
export class GetAuditLog {
  constructor(private readonly deps: { audit: AuditLog }) {}

  async execute(input: { page?: unknown; limit?: unknown }): Promise<Result<Page<AuditEntry>>> {
    const request = parsePageRequest(input);
    if (!request.ok) return request;
    return ok(await this.deps.audit.list(request.value));
  }
}
