// Imported first by main.ts: tracing (when an OTLP endpoint is set) must start before the modules it instruments load.
import { startTracing } from '@payments/tracing';

startTracing('ledger');
