const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Every id is a UUID; a malformed one is never looked up (it is "not found", or a validation error). */
export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID.test(value);
