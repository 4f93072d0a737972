import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { INVOICE_SCHEMA, INVOICE_SIMULATE_SCHEMA, listSchema, PAYMENT_INTENT_SCHEMA, PAYMENT_SCHEMA, REFUND_SCHEMA } from '@payments/contracts';

// The resources' JSON Schemas (libs/contracts) as the OpenAPI 3.1 document takes them; the swagger typings
// predate 3.1's keywords (`const`, type lists), hence the casts.
export const PAYMENT_INTENT_RESPONSE = PAYMENT_INTENT_SCHEMA as unknown as SchemaObject;
export const INVOICE_RESPONSE = INVOICE_SCHEMA as unknown as SchemaObject;
export const INVOICE_SIMULATE_RESPONSE = INVOICE_SIMULATE_SCHEMA as unknown as SchemaObject;
export const REFUND_RESPONSE = REFUND_SCHEMA as unknown as SchemaObject;
export const PAYMENT_RESPONSE = PAYMENT_SCHEMA as unknown as SchemaObject;
export const REFUND_LIST_RESPONSE = listSchema(REFUND_SCHEMA) as unknown as SchemaObject;
export const PAYMENT_LIST_RESPONSE = listSchema(PAYMENT_SCHEMA) as unknown as SchemaObject;
