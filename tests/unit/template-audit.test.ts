import test from 'ava';
import type { WorkflowTemplate } from '../../core/domain/workflow-template.ts';
import { changedFields, patchAction } from '../../core/use-cases/templates/template-audit.service.ts';

// Pins what a template's audit entry says changed: each field compared by value (dates by their time, workflows
// structurally), in a fixed order; a change of isActive alone reads as activate or deactivate.
const template = (over: Partial<WorkflowTemplate> = {}): WorkflowTemplate =>
  ({
    id: 't',
    name: 'Portrait',
    description: '',
    category: 'image',
    workflow: { '1': { class_type: 'EmptyImage', inputs: { width: 8, image: ['2', 0] } } },
    parameterMap: {},
    cost: 5,
    outputType: 'image',
    isActive: true,
    publishedAt: new Date('2030-01-01T00:00:00Z'),
    version: 1,
    ...over,
  }) as unknown as WorkflowTemplate;

test('changed fields: by value, dates by time, in a fixed order', (t) => {
  t.deepEqual(changedFields(template(), template({ publishedAt: new Date('2030-01-01T00:00:00Z') })), [], 'an equal date is no change');
  t.deepEqual(changedFields(template(), template({ workflow: { '1': { class_type: 'EmptyImage', inputs: { image: [2, 0], width: 8 } } } })), [], 'the same graph written otherwise is no change');
  t.deepEqual(changedFields(template(), template({ publishedAt: null })), ['publishedAt']);
  t.deepEqual(changedFields(template({ publishedAt: null }), template()), ['publishedAt']);
  t.deepEqual(changedFields(template(), template({ cost: 6, name: 'Other', isActive: false })), ['name', 'cost', 'isActive']);
});

test('a change of isActive alone is an activation or deactivation; anything more is an update', (t) => {
  t.is(patchAction(template({ isActive: false }), template()), 'template.activate');
  t.is(patchAction(template(), template({ isActive: false })), 'template.deactivate');
  t.is(patchAction(template(), template({ isActive: false, cost: 1 })), 'template.update');
  t.is(patchAction(template(), template({ cost: 1 })), 'template.update');
});
