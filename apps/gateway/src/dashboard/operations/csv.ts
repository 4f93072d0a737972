// CSV export of a filtered list: RFC 4180 quoting, and every text cell that a spreadsheet would read as a formula
// (= + - @, and tab / carriage return, which some read before them) gets a leading quote so it stays text.

/** Most rows one export holds: the file stays a download, not a way to page the whole history at once. */
export const CSV_MAX_ROWS = 10_000;

/** A plain decimal number (a MoneyString, a negative amount, a sequence) cannot be a formula: kept as it is. */
const PLAIN_NUMBER = /^-?\d+(?:\.\d+)?$/;
const FORMULA_START = /^[=+\-@\t\r]/;

export type CsvValue = string | number | boolean | null | undefined;

/** One cell, escaped against CSV structure and formula injection. */
export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (FORMULA_START.test(text) && !PLAIN_NUMBER.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One line of cells, ended with CRLF as RFC 4180 has it. */
export function csvLine(values: readonly CsvValue[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}

/** A list command's one page. */
export interface CsvPage<T> {
  data: T[];
  has_more: boolean;
}

/**
 * The export's lines: the header, then the rows of every page the list command gives (paged with `starting_after`
 * the last id), up to `maxRows`. Pages are asked for one at a time as the response is written.
 */
export async function* csvLines<T extends { id: string }>(
  header: readonly string[],
  row: (item: T) => readonly CsvValue[],
  page: (startingAfter: string | undefined, limit: number) => Promise<CsvPage<T>>,
  maxRows = CSV_MAX_ROWS,
  pageSize = 100,
): AsyncGenerator<string> {
  yield csvLine(header);
  let written = 0;
  let after: string | undefined;
  while (written < maxRows) {
    const next = await page(after, Math.min(pageSize, maxRows - written));
    for (const item of next.data.slice(0, maxRows - written)) {
      yield csvLine(row(item));
      written += 1;
    }
    const last = next.data[next.data.length - 1];
    if (!next.has_more || !last) return;
    after = last.id;
  }
}

/** The download's file name: what, which environment, when (no user text in it). */
export function csvFileName(what: string, environment: string, now: Date): string {
  return `${what}-${environment}-${now.toISOString().slice(0, 10)}.csv`;
}
