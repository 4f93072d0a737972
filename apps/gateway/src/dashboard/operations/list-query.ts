// The filter form and cursor of a list page, read from its query string, and the links that page on from it. Pure:
// which filters a list offers is its definition's (operations-lists.ts); only those are read and shown.
import { EXTERNAL_REF_FILTER_SCHEMA } from '@payments/contracts';
import { parseMoneyString } from '@payments/money';

export type FilterName = 'status' | 'from' | 'to' | 'external_ref' | 'amount_min' | 'amount_max' | 'payment_id' | 'type';

/** A list's filters as the form holds them (and as its URLs carry them). */
export type ListFilters = Partial<Record<FilterName, string>>;

export interface ListCursor {
  starting_after?: string;
  ending_before?: string;
}

/** How one list reads its query: which filters it offers, the values a choice may take, what its ids look like. */
export interface ListShape {
  filters: readonly FilterName[];
  /** Values of `status` (or `type`), in the form's order. */
  choices?: readonly string[];
  /** An id of this list (cursors that are not one are ignored: the first page). */
  idPattern: RegExp;
  /** Whether the list command pages back (`ending_before`); otherwise pages go forward with a "first page" link. */
  pagesBack: boolean;
  /** The pattern of `payment_id` where the list offers it. */
  paymentIdPattern?: RegExp;
}

export interface FilterProblem {
  field: FilterName;
  problem: 'choice' | 'date' | 'range' | 'amount' | 'text' | 'id';
}

export interface ListRequest {
  filters: ListFilters;
  cursor: ListCursor;
  /** Values that were not understood: left out of the list's command and shown next to their field. */
  problems: FilterProblem[];
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const MAX_TEXT = EXTERNAL_REF_FILTER_SCHEMA.maxLength;

function single(value: unknown): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  if (typeof first !== 'string') return undefined;
  const trimmed = first.trim();
  return trimmed === '' ? undefined : trimmed;
}

function validDay(value: string): boolean {
  if (!DAY.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
}

/** Reads a list page's query: only the shape's filters, each checked; a bad value is reported and left out. */
export function parseListQuery(shape: ListShape, query: Record<string, unknown>): ListRequest {
  const filters: ListFilters = {};
  const problems: FilterProblem[] = [];
  for (const field of shape.filters) {
    const value = single(query[field]);
    if (value === undefined) continue;
    const problem = checkFilter(shape, field, value);
    if (problem) problems.push({ field, problem });
    else filters[field] = value;
  }
  if (filters.from && filters.to && filters.from > filters.to) {
    problems.push({ field: 'to', problem: 'range' });
    delete filters.to;
  }
  if (filters.amount_min && filters.amount_max && amountCents(filters.amount_min) > amountCents(filters.amount_max)) {
    problems.push({ field: 'amount_max', problem: 'range' });
    delete filters.amount_max;
  }
  const cursor: ListCursor = {};
  const after = single(query.starting_after);
  const before = single(query.ending_before);
  if (after && shape.idPattern.test(after)) cursor.starting_after = after;
  else if (before && shape.pagesBack && shape.idPattern.test(before)) cursor.ending_before = before;
  return { filters, cursor, problems };
}

function checkFilter(shape: ListShape, field: FilterName, value: string): FilterProblem['problem'] | null {
  switch (field) {
    case 'status':
    case 'type':
      return shape.choices?.includes(value) ? null : 'choice';
    case 'from':
    case 'to':
      return validDay(value) ? null : 'date';
    case 'amount_min':
    case 'amount_max':
      return amountCents(value) >= 0 ? null : 'amount';
    case 'payment_id':
      return shape.paymentIdPattern?.test(value) ? null : 'id';
    case 'external_ref':
      return value.length <= MAX_TEXT ? null : 'text';
  }
}

/** An amount filter in cents (any cent up to the largest payment, as the list commands take), or -1. */
function amountCents(value: string): number {
  const parsed = parseMoneyString(value, { minCents: 1 });
  return parsed.ok ? parsed.cents : -1;
}

/** The form's day range as the list commands' created bounds: from 00:00 UTC of `from` to before 00:00 after `to`. */
export function createdBounds(filters: ListFilters): { created_gte?: string; created_lt?: string } {
  const bounds: { created_gte?: string; created_lt?: string } = {};
  if (filters.from) bounds.created_gte = `${filters.from}T00:00:00.000Z`;
  if (filters.to) {
    const next = new Date(`${filters.to}T00:00:00Z`);
    next.setUTCDate(next.getUTCDate() + 1);
    bounds.created_lt = next.toISOString();
  }
  return bounds;
}

/** The filters as query parameters, in a fixed order (paging and export links keep them). */
export function filterParams(filters: ListFilters): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filters).sort(([a], [b]) => a.localeCompare(b))) if (value) params.set(name, value);
  return params;
}

function link(path: string, params: URLSearchParams): string {
  const query = params.toString();
  return query ? `${path}?${query}` : path;
}

export interface PagingLinks {
  next?: string;
  previous?: string;
  /** Lists that page forward only: back to the newest. */
  first?: string;
}

/**
 * Links from a page of a list, newest first. Forward is `starting_after` the last row; back is `ending_before` the
 * first row where the list pages back (its `has_more` then says whether there is more before), else a link to the
 * first page once the page is not the first.
 */
export function pagingLinks(path: string, shape: ListShape, request: Pick<ListRequest, 'filters' | 'cursor'>, page: { data: Array<{ id: string }>; has_more: boolean }): PagingLinks {
  const links: PagingLinks = {};
  const firstRow = page.data[0];
  const lastRow = page.data[page.data.length - 1];
  const cameBack = request.cursor.ending_before !== undefined;
  const paged = request.cursor.starting_after !== undefined || cameBack;
  const moreAfter = cameBack ? true : page.has_more;
  const moreBefore = cameBack ? page.has_more : request.cursor.starting_after !== undefined;
  if (lastRow && moreAfter) {
    const params = filterParams(request.filters);
    params.set('starting_after', lastRow.id);
    links.next = link(path, params);
  }
  if (shape.pagesBack) {
    if (firstRow && moreBefore) {
      const params = filterParams(request.filters);
      params.set('ending_before', firstRow.id);
      links.previous = link(path, params);
    } else if (!firstRow && paged) {
      links.first = link(path, filterParams(request.filters));
    }
  } else if (paged) {
    links.first = link(path, filterParams(request.filters));
  }
  return links;
}

/** The export link of a list: the same filters, no cursor (an export starts at the newest). */
export function exportLink(path: string, filters: ListFilters): string {
  return link(`${path}/export.csv`, filterParams(filters));
}
