import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';

const ERROR_SCHEMA = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string' },
        message: { type: 'string' },
        param: { type: 'string' },
        request_id: { type: 'string' },
      },
    },
  },
};

const DESCRIPTIONS: Record<number, string> = {
  400: 'invalid request (invalid_request, idempotency_key_required)',
  401: 'invalid or disabled API key (invalid_api_key)',
  403: 'account_not_verified, or live_mode_not_allowed',
  404: 'not_found',
  409: 'idempotency_key_reused, idempotency_request_in_progress, payment_methods_unavailable, invalid_state',
  429: 'rate_limited (see Retry-After)',
  503: 'service_unavailable (retry with the same Idempotency-Key)',
};

/** OpenAPI: the Error shape for each listed status. */
export function ApiErrors(...statuses: number[]): MethodDecorator {
  return applyDecorators(
    ...statuses.map((status) => ApiResponse({ status, description: DESCRIPTIONS[status], schema: ERROR_SCHEMA })),
  );
}
