// Payer phones are kept and shown partly masked. Rule: count only the digits; the first 4 and the last 3 digits
// stay, every other digit becomes '*'; every other character ('+', spaces, dashes, brackets) stays where it is.
// A number of 7 digits or fewer would be fully visible under that rule, so there only the last 3 digits stay.
//   "+970 599 123 456" -> "+970 5** *** 456"     "+1234567" -> "+****567"

const VISIBLE_HEAD = 4;
const VISIBLE_TAIL = 3;

export function maskPhone(phone: string | null | undefined): string | null {
  if (phone === null || phone === undefined) return null;
  const trimmed = phone.trim();
  if (trimmed === '') return null;
  const digitCount = (trimmed.match(/\d/g) ?? []).length;
  const head = digitCount > VISIBLE_HEAD + VISIBLE_TAIL ? VISIBLE_HEAD : 0;
  let index = 0;
  return trimmed.replace(/\d/g, (digit) => {
    const position = index;
    index += 1;
    return position < head || position >= digitCount - VISIBLE_TAIL ? digit : '*';
  });
}
