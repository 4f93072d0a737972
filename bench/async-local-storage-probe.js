// Enters an AsyncLocalStorage once, before the service starts: the promise hooks Node 20 turns on for it, with no
// OpenTelemetry at all. Loaded into each service by a benchmark run to price them (docs/performance.md, "Tracing's cost"):
// BENCH_SERVICE_ENV='{"gateway":{"NODE_OPTIONS":"--require ./bench/async-local-storage-probe.js"},…}'
const { AsyncLocalStorage } = require('node:async_hooks');
new AsyncLocalStorage().enterWith({ probe: true });
