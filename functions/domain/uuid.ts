/** Whether a path value is a UUID as this service makes them (randomUUID): ids of keys and rules are, and nothing else names one. */
export const isUuid = (value: string | undefined): value is string => value !== undefined && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(value);
