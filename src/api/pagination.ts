/**
 * A list's `pagination`; `has_more` = offset + page length < total
 * (docs/reference/api.md "Conventions", Pages).
 */
export function paginate(limit: number, offset: number, pageLength: number, total: number) {
  return { limit, offset, total, has_more: offset + pageLength < total }
}
