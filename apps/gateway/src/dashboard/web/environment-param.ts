import { NotFoundException } from '@nestjs/common';
import type { Environment } from '@payments/ids';

/** The environment of a dashboard URL (`/dashboard/<live|test>/...`); anything else is not a page (404). */
export function environmentOf(segment: string): Environment {
  if (segment === 'live' || segment === 'test') return segment;
  throw new NotFoundException();
}
