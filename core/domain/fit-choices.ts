import type { ParameterMap, ParameterMappingItem } from './parameter-map.ts';

/** Longer choices are not kept: such a job is placed by its template's servers alone. */
export const FIT_CHOICES_MAX = 1000;

/**
 * A job's choices among its template's enum parameters (a checkpoint, a LoRA, a VAE): beside the template, they decide
 * which engine servers can run it (ADR 050). JSON of name → value in name order, kept with the job at submit; '' when
 * the template has no enum parameter, or when the text would be longer than FIT_CHOICES_MAX.
 */
export function fitChoicesOf(map: ParameterMap, used: Record<string, unknown>): string {
  const names = Object.keys(map)
    .filter((name) => map[name]!.type === 'enum' && Object.hasOwn(used, name) && (typeof used[name] === 'string' || typeof used[name] === 'number'))
    .sort();
  if (names.length === 0) return '';
  const text = JSON.stringify(Object.fromEntries(names.map((name) => [name, used[name]])));
  return text.length <= FIT_CHOICES_MAX ? text : '';
}

/**
 * The template's map as one job uses it: each enum parameter it made a choice for offers only that value, so the
 * check against a server's catalogue asks for the model the job chose rather than every model the template offers.
 * A choice the current map does not offer (the template changed since) or unreadable choices leave the map as it is.
 */
export function narrowToChoices(map: ParameterMap, fitChoices: string): ParameterMap {
  if (fitChoices === '') return map;
  let choices: unknown;
  try {
    choices = JSON.parse(fitChoices);
  } catch {
    return map;
  }
  if (typeof choices !== 'object' || choices === null) return map;
  const narrowed: ParameterMap = { ...map };
  for (const [name, value] of Object.entries(choices)) {
    const item: ParameterMappingItem | undefined = Object.hasOwn(map, name) ? map[name] : undefined;
    if (item?.type === 'enum' && item.options?.some((option) => option === value)) narrowed[name] = { ...item, options: [value as string | number], default: value as string | number };
  }
  return narrowed;
}
