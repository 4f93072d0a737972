import type { INestApplication } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';

/**
 * OpenAPI 3.1 generated from the routes and DTOs. Also built without a running service (Nest's preview mode,
 * libs/client/scripts/generate-types.js) for the merchant client's types, so both go through this one function.
 */
export function buildOpenApiDocument(app: INestApplication, publicBaseUrl: string): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Payment service API')
    .setDescription(
      'Hosted payment sessions (payment intents and invoices), status reads, test-mode simulation. ' +
        'Authenticate with `Authorization: Bearer pay_live_…` or `pay_test_…`. Errors use `{error: {code, message, param?, request_id}}`.',
    )
    .setVersion('2.0.0')
    .addServer(publicBaseUrl)
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'pay_(live|test)_<key id>.<secret>' })
    .build();
  return SwaggerModule.createDocument(app, config);
}

/** JSON at /openapi.json, rendered docs at /docs. */
export function setUpOpenApi(app: NestFastifyApplication, publicBaseUrl: string): void {
  const document = buildOpenApiDocument(app, publicBaseUrl);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json', customSiteTitle: 'Payment service API' });
}
