// The ledger's commands checked against their schema in @payments/contracts before anything is read: a command
// is refused as the gateway would refuse the request (400 invalid_request naming the field), never a 500.
import { validateCommand, type LedgerCommandName } from '@payments/contracts';
import { ApiError } from '@payments/platform';

/** Command fields whose API query parameter is spelled otherwise. */
const API_PARAMS: Record<string, string> = { created_gte: 'created[gte]', created_lt: 'created[lt]' };

export function parseCommand<T>(name: LedgerCommandName, body: unknown): T {
  const check = validateCommand(name, body);
  if (!check.ok) {
    const param = API_PARAMS[check.param] ?? check.param;
    throw new ApiError('invalid_request', `${param}${check.message.slice(check.param.length)}`, param);
  }
  return body as T;
}
