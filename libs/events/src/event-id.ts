import { randomBase62 } from '@payments/ids';

export const EVENT_ID_PATTERN = /^evt_[0-9A-Za-z]{24}$/;

/** `evt_` + 24 base62 characters (~143 bits) from the system CSPRNG. */
export function newEventId(): string {
  return `evt_${randomBase62(24)}`;
}
