// CSV export of a filtered list: every page of the owner's list command in turn (the same command and filters as
// the page shows), written as RFC 4180 CSV. Plain TypeScript; the page's controller streams what this yields.

/** One page of a list as the clients answer it. */
export interface ListPageOf<T> {
  data: T[];
  has_more: boolean;
}

/**
 * Every item of a list, page by page (`fetchPage(starting_after)` asks the owner for the page after that id), up to
 * `maxRows`: an export of a very long history stops there rather than holding a request open for minutes.
 */
export async function* everyItem<T extends { id: string }>(fetchPage: (startingAfter: string | undefined) => Promise<ListPageOf<T>>, maxRows: number): AsyncGenerator<T> {
  let after: string | undefined;
  let yielded = 0;
  for (;;) {
    const page = await fetchPage(after);
    for (const item of page.data) {
      if (yielded >= maxRows) return;
      yielded++;
      yield item;
    }
    if (!page.has_more || page.data.length === 0) return;
    after = page.data[page.data.length - 1]!.id;
  }
}

/**
 * One CSV line (CRLF-terminated). A field with a comma, quote or line break is quoted; one a spreadsheet would run
 * as a formula (starting with = + - @, a tab or a carriage return, unless it is a plain number) is prefixed with a
 * quote mark, so a customer's name or an external_ref cannot become a formula in the merchant's spreadsheet.
 */
export function csvLine(fields: ReadonlyArray<string | number | boolean | null | undefined>): string {
  return `${fields.map(csvField).join(',')}\r\n`;
}

/** A plain decimal number (a MoneyString such as a refund's -7.50) cannot be a formula: it stays a number. */
const PLAIN_NUMBER = /^-?\d+(?:\.\d+)?$/;

function csvField(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text) && !PLAIN_NUMBER.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
