/** A non-empty string search parameter, else undefined (the route's `validateSearch` drops it). */
export const optionalString = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
