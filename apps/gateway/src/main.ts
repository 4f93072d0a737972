import './tracing';
import 'reflect-metadata';
import { bootstrapService } from '@payments/platform';
import { GatewayConfig, GATEWAY_DEFAULTS } from './config';
import { pingRoute } from './diagnostics/ping.route';
import { GatewayModule } from './gateway.module';
import { setUpOpenApi } from './openapi';
import { GATEWAY_ENTITIES, GATEWAY_MIGRATIONS } from './migrations/gateway-schema';

void bootstrapService({
  service: 'gateway',
  imports: [GatewayModule],
  configClass: GatewayConfig,
  defaults: GATEWAY_DEFAULTS,
  database: { entities: GATEWAY_ENTITIES, migrations: GATEWAY_MIGRATIONS },
  configure: (app, config) => setUpOpenApi(app, config.PUBLIC_BASE_URL),
  operations: (app) => [pingRoute(app)],
});
