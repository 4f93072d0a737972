/** `5000,300000,...` to numbers; a part that is not a whole number stays as text so the check names it. */
export function parseMillisList({ obj, key, value }: { obj: Record<string, unknown>; key: string; value: unknown }): unknown {
  const raw = obj[key];
  if (typeof raw !== 'string') return value;
  return raw
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.length > 0)
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}
