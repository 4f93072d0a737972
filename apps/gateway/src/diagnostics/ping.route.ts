import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { newRequestId } from '@payments/ids';
import { commandPattern, ServiceClient, type OperationsRoute, type PingAnswer } from '@payments/platform';
import { GatewayConfig } from '../config';
import { SERVICES, type ServiceName } from '../command-clients/service-names';

/**
 * Operators' check of the command path to one service, on the operations port: 200 with its answer and the round
 * trip, 503 when it does not answer. `gateway` answers from the gateway itself (the same path without the hop).
 */
export function pingRoute(app: NestFastifyApplication): OperationsRoute {
  const services = app.get(ServiceClient);
  const config = app.get(GatewayConfig);
  return {
    pattern: /^\/internal\/services\/([a-z-]+)\/ping$/,
    async answer(match) {
      const service = match[1]!;
      if (service !== 'gateway' && !SERVICES.includes(service as ServiceName)) {
        return { status: 404, body: { error: { code: 'not_found', message: `No service named ${service}`, param: 'service' } } };
      }
      const started = performance.now();
      try {
        const answer: PingAnswer =
          service === 'gateway'
            ? { service, instance: config.INSTANCE_ID, at: new Date().toISOString() }
            : await services.request<PingAnswer>(commandPattern(service, 'ping'), {}, { correlationId: newRequestId() });
        return { status: 200, body: { ...answer, latency_ms: Math.round((performance.now() - started) * 10) / 10 } };
      } catch (error) {
        const code = (error as { code?: string }).code ?? 'service_unavailable';
        return { status: 503, body: { error: { code, message: `${service} did not answer.` } } };
      }
    },
  };
}
