// The rows of an UPDATE … RETURNING run through TypeORM's query(): its postgres driver answers [rows, count] for
// an UPDATE (a bare row list for other statements). One reading for every repository and pass that claims a row.
export function returnedRows<T>(result: unknown): T[] {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as T[];
  return result as T[];
}
