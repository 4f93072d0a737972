import { metricsRegistry } from '@payments/platform';
import { Counter, Gauge } from 'prom-client';

const chain = ['chain'] as const;

/** The chain's head as last read. */
export const headBlock = new Gauge({ name: 'chain_watcher_head_block', help: 'Head block of the chain as last read', labelNames: chain, registers: [metricsRegistry] });

/** The highest block scanned: head_block minus this is how far behind the watcher is. */
export const scannedBlock = new Gauge({ name: 'chain_watcher_scanned_block', help: 'Highest block the watcher has scanned', labelNames: chain, registers: [metricsRegistry] });

/** 1 while this instance holds the chain's lock (one instance across replicas watches a chain). */
export const watching = new Gauge({ name: 'chain_watcher_active', help: '1 while this instance watches the chain', labelNames: chain, registers: [metricsRegistry] });

export const transfersCounted = new Counter({ name: 'chain_watcher_transfers_counted_total', help: 'Transfers handed to sessions after their confirmations', labelNames: chain, registers: [metricsRegistry] });

/** Counted transfers a reorg took back: each one is an operator's case. */
export const transfersReversed = new Counter({ name: 'chain_watcher_transfers_reversed_total', help: 'Counted transfers removed by a reorg and reported', labelNames: chain, registers: [metricsRegistry] });

export const reorgs = new Counter({ name: 'chain_watcher_reorgs_total', help: 'Reorgs seen; deep: deeper than the kept block hashes', labelNames: ['chain', 'deep'] as const, registers: [metricsRegistry] });

export const rpcErrors = new Counter({ name: 'chain_watcher_rpc_errors_total', help: 'Failed JSON-RPC calls to the chain node', labelNames: chain, registers: [metricsRegistry] });

export const stepFailures = new Counter({ name: 'chain_watcher_step_failures_total', help: 'Scan steps that failed and were retried', labelNames: chain, registers: [metricsRegistry] });
