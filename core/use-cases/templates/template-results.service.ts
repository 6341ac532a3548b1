import { fail } from '../../domain/result.ts';

/** The failures the template use cases share, worded once. */
export const templateNotFound = () => fail('NOT_FOUND', 'Workflow template not found');

export const templateNameTaken = (name: string) => fail('TEMPLATE.NAME_TAKEN', `A workflow template named "${name}" already exists`);
