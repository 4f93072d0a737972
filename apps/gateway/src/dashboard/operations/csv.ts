// The operations views' CSV downloads, on the dashboard's CSV helpers (filters/csv-export.ts): the header, then
// every row of the filtered list, paged through the list command, at most CSV_MAX_ROWS.
import { csvLine, everyItem, type ListPageOf } from '../filters/csv-export';

/** Most rows one export holds: the file stays a download, not a way to page the whole history at once. */
export const CSV_MAX_ROWS = 10_000;

/** Rows asked of the owner per page of an export (the commands' largest page). */
export const CSV_PAGE_SIZE = 100;

export type CsvValue = string | number | boolean | null | undefined;

/** The export's lines: the header, then a line per item of every page `page(startingAfter, limit)` gives. */
export async function* csvLines<T extends { id: string }>(
  header: readonly string[],
  row: (item: T) => readonly CsvValue[],
  page: (startingAfter: string | undefined, limit: number) => Promise<ListPageOf<T>>,
  maxRows = CSV_MAX_ROWS,
  pageSize = CSV_PAGE_SIZE,
): AsyncGenerator<string> {
  yield csvLine(header);
  for await (const item of everyItem((after) => page(after, pageSize), maxRows)) yield csvLine(row(item));
}

/** The download's file name: what, which environment, when (no user text in it). */
export function csvFileName(what: string, environment: string, now: Date): string {
  return `${what}-${environment}-${now.toISOString().slice(0, 10)}.csv`;
}
