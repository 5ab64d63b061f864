/** The root of every charging query key: a money move refreshes everything under it. */
export const CHARGING_KEY = ['charging'] as const;

/** A list's filters without its paging: an export writes every matching row. */
export function exportFilters<Q extends { page?: number; size?: number }>(query: Q): Q {
  return { ...query, page: undefined, size: undefined };
}
