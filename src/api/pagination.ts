/** SPEC.md "PaginationMeta"; `has_more` = offset + page length < total (DESIGN.md). */
export function paginate(limit: number, offset: number, pageLength: number, total: number) {
  return { limit, offset, total, has_more: offset + pageLength < total }
}
