/** The time commands and the expiry job act at; injected so tests can create sessions that are already due. */
export abstract class Clock {
  abstract now(): Date;
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}
