import { isOffered, templateNameKey, type TemplateVersion, type WorkflowTemplate } from '../../core/domain/workflow-template.ts';
import type { TemplateRepository, TemplateUpdateOutcome } from '../../core/ports/template-repository.port.ts';
import type { MemoryStore } from './memory-store.ts';

interface StoredTemplate extends WorkflowTemplate {
  deletedAt: Date | null;
}

type StoredVersion = Omit<TemplateVersion, 'name' | 'isActive' | 'deletedAt'>;

/** Copies in and out, like a database would: callers can never change stored state by holding a reference. */
const copy = <T>(value: T): T => structuredClone(value);

const publicTemplate = ({ deletedAt: _deleted, ...template }: StoredTemplate): WorkflowTemplate => copy(template);

export class MemoryTemplateRepository implements TemplateRepository {
  constructor(private readonly store: MemoryStore) {}

  private get templates() {
    return this.store.table<StoredTemplate>('templates');
  }

  private get versions() {
    return this.store.table<StoredVersion>('template_versions');
  }

  private live(id: string): StoredTemplate | null {
    const template = this.templates.get(id);
    return template && !template.deletedAt ? template : null;
  }

  private recordVersion(template: WorkflowTemplate): void {
    this.versions.set(`${template.id}/${template.version}`, {
      templateId: template.id,
      version: template.version,
      category: template.category,
      workflow: copy(template.workflow),
      parameterMap: copy(template.parameterMap),
      cost: template.cost,
      outputType: template.outputType,
      createdAt: template.updatedAt,
    });
  }

  async create(template: WorkflowTemplate): Promise<boolean> {
    if (await this.nameTaken(template.name)) return false;
    this.templates.set(template.id, { ...copy(template), deletedAt: null });
    this.recordVersion(template);
    return true;
  }

  async findById(id: string): Promise<WorkflowTemplate | null> {
    const template = this.live(id);
    return template ? publicTemplate(template) : null;
  }

  async nameTaken(name: string, exceptId?: string): Promise<boolean> {
    const key = templateNameKey(name);
    for (const template of this.templates.values()) {
      if (!template.deletedAt && template.id !== exceptId && templateNameKey(template.name) === key) return true;
    }
    return false;
  }

  async list(options: { offeredOnly?: boolean } = {}): Promise<WorkflowTemplate[]> {
    return [...this.templates.values()]
      .filter((template) => !template.deletedAt && (!options.offeredOnly || isOffered(template)))
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map(publicTemplate);
  }

  async namesOf(ids: readonly string[]): Promise<Map<string, string>> {
    const names = new Map<string, string>();
    for (const id of ids) {
      const template = this.templates.get(id);
      if (template && !template.deletedAt) names.set(id, template.name);
    }
    return names;
  }

  async update(next: WorkflowTemplate, options: { newVersion: boolean }): Promise<TemplateUpdateOutcome> {
    if (!this.live(next.id)) return 'not_found';
    if (await this.nameTaken(next.name, next.id)) return 'name_taken';
    this.templates.set(next.id, { ...copy(next), deletedAt: null });
    if (options.newVersion) {
      this.recordVersion(next);
    } else {
      const current = this.versions.get(`${next.id}/${next.version}`);
      if (current) Object.assign(current, { category: next.category, cost: next.cost, outputType: next.outputType });
    }
    return 'updated';
  }

  async softDelete(id: string, at: Date): Promise<boolean> {
    const template = this.live(id);
    if (!template) return false;
    template.deletedAt = at;
    template.updatedAt = at;
    return true;
  }

  async findVersion(templateId: string, version: number): Promise<TemplateVersion | null> {
    const template = this.templates.get(templateId);
    const stored = this.versions.get(`${templateId}/${version}`);
    if (!template || !stored) return null;
    return { ...copy(stored), name: template.name, isActive: template.isActive, deletedAt: template.deletedAt };
  }

  async countEver(): Promise<number> {
    return this.templates.size;
  }
}
