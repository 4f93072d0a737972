// The payer's phone as an invoice reports it: the spec allows it partially masked. The country code and first
// digits and the last few stay, so the customer and the merchant can recognise it; the middle is hidden.

const MASK = '•';

/** `+970 59 123 4567` → `+97059•••4567`; null stays null; a short number keeps at most its last two digits. */
export function maskPhone(phone: string | null | undefined): string | null {
  if (phone === null || phone === undefined) return null;
  const trimmed = phone.trim();
  if (trimmed === '') return null;
  const plus = trimmed.startsWith('+') ? '+' : '';
  const digits = trimmed.replace(/\D/g, '');
  if (digits.length === 0) return null;
  if (digits.length < 6) return plus + MASK.repeat(Math.max(0, digits.length - 2)) + digits.slice(-2);
  const end = digits.length >= 10 ? 4 : digits.length >= 8 ? 3 : 2;
  // At least three digits hidden, at most five shown in front (a country code and an operator prefix).
  const start = Math.max(1, Math.min(5, digits.length - end - 3));
  return `${plus}${digits.slice(0, start)}${MASK.repeat(digits.length - start - end)}${digits.slice(-end)}`;
}

/** A phone as the profile form takes it: digits, spaces, dashes, brackets and a leading +; 6 to 20 digits. */
export function normalisePhone(input: unknown): { ok: true; phone: string | null } | { ok: false } {
  if (typeof input !== 'string') return { ok: true, phone: null };
  const trimmed = input.trim().replace(/\s+/g, ' ');
  if (trimmed === '') return { ok: true, phone: null };
  if (trimmed.length > 40 || !/^\+?[0-9 ()-]+$/.test(trimmed)) return { ok: false };
  const digits = trimmed.replace(/\D/g, '').length;
  return digits >= 6 && digits <= 20 ? { ok: true, phone: trimmed } : { ok: false };
}
