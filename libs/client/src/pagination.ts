import type { Page } from './types';

/**
 * A list call: `await` it for the first page, or iterate it for every item across pages (the cursor is the last
 * id of each page, `starting_after`), fetching a page only when the previous one is used up.
 */
export class AutoPagingList<T extends { id: string }> implements PromiseLike<Page<T>>, AsyncIterable<T> {
  private first: Promise<Page<T>> | undefined;

  constructor(private readonly fetchPage: (startingAfter: string | undefined) => Promise<Page<T>>) {}

  private firstPage(): Promise<Page<T>> {
    this.first ??= this.fetchPage(undefined);
    return this.first;
  }

  then<R1 = Page<T>, R2 = never>(onfulfilled?: ((value: Page<T>) => R1 | PromiseLike<R1>) | null, onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null): Promise<R1 | R2> {
    return this.firstPage().then(onfulfilled, onrejected);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    let page = await this.firstPage();
    for (;;) {
      yield* page.data;
      const last = page.data[page.data.length - 1];
      if (!page.has_more || last === undefined) return;
      page = await this.fetchPage(last.id);
    }
  }

  /** Every item (up to `max`), in order. */
  async toArray(max = Number.POSITIVE_INFINITY): Promise<T[]> {
    const items: T[] = [];
    if (max <= 0) return items;
    for await (const item of this) {
      items.push(item);
      if (items.length >= max) break;
    }
    return items;
  }
}
