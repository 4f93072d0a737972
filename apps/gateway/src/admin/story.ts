import { assertSchemaName, qualified } from '@payments/database';
import { formatMoney } from '@payments/money';
import type { DataSource } from 'typeorm';
import type { CommandOutput } from './admin-output';

/** Where each owner keeps its data (same database; each owner's DB_SCHEMA). */
export interface StorySchemas {
  sessions: string;
  ledger: string;
  refunds: string;
  webhooks: string;
}

/** The schemas from SESSIONS_DB_SCHEMA, LEDGER_DB_SCHEMA, REFUNDS_DB_SCHEMA and WEBHOOKS_DB_SCHEMA, or the services' defaults. */
export function storySchemas(env: NodeJS.ProcessEnv): StorySchemas {
  const schema = (name: string, fallback: string) => {
    const value = env[name] ?? fallback;
    try {
      return assertSchemaName(value);
    } catch {
      throw new Error(`${name} must be a lower-case SQL identifier, got "${value}"`);
    }
  };
  return {
    sessions: schema('SESSIONS_DB_SCHEMA', 'sessions'),
    ledger: schema('LEDGER_DB_SCHEMA', 'ledger'),
    refunds: schema('REFUNDS_DB_SCHEMA', 'refunds'),
    webhooks: schema('WEBHOOKS_DB_SCHEMA', 'webhooks'),
  };
}

type Row = Record<string, unknown>;

const iso = (value: unknown): string | null => (value instanceof Date ? value.toISOString() : value === null || value === undefined ? null : String(value));
const money = (cents: unknown): string => formatMoney(BigInt(cents as string | number));

/**
 * One payment's whole story across the owners' own data, read-only: the session (intent or invoice) with its events
 * in sequence, provider attempts, the payment, the ledger's postings with their entries, refunds, and every webhook
 * event about them with its deliveries and attempts. `id` is a payment intent, an invoice, a payment or a refund id.
 * A part whose table cannot be read (an owner not deployed here) is named in `unreadable`, and the rest still shown.
 */
export async function readStory(db: DataSource, schemas: StorySchemas, id: string): Promise<Record<string, unknown>> {
  const s = (table: string) => qualified(schemas.sessions, table);
  const unreadable: Array<{ part: string; reason: string }> = [];
  const read = async (part: string, sql: string, params: unknown[]): Promise<Row[]> => {
    try {
      return (await db.query(sql, params)) as Row[];
    } catch (error) {
      unreadable.push({ part, reason: error instanceof Error ? error.message : String(error) });
      return [];
    }
  };

  // Find the session the id leads to: directly, through its payment, or through a refund of that payment.
  let sessionId = id;
  if (/^\d+$/.test(id)) {
    const [payment] = await read('sessions.payments', `SELECT source_id FROM ${s('payments')} WHERE id = $1::bigint`, [id]);
    if (payment) sessionId = String(payment.source_id);
  } else if (!id.startsWith('pi_') && !id.startsWith('inv_')) {
    const [refund] = await read('refunds.refunds', `SELECT payment_id::text AS payment_id FROM ${qualified(schemas.refunds, 'refunds')} WHERE id = $1`, [id]);
    if (refund) {
      const [payment] = await read('sessions.payments', `SELECT source_id FROM ${s('payments')} WHERE id = $1::bigint`, [refund.payment_id]);
      if (payment) sessionId = String(payment.source_id);
    }
  }
  const kind = sessionId.startsWith('inv_') ? 'invoice' : 'payment_intent';
  const [session] = await read(`sessions.${kind}s`, `SELECT * FROM ${s(kind === 'invoice' ? 'invoices' : 'payment_intents')} WHERE id = $1`, [sessionId]);
  if (!session) {
    if (unreadable.length > 0) throw new Error(`cannot read sessions' data: ${unreadable.map((u) => `${u.part}: ${u.reason}`).join('; ')}`);
    throw new Error(`no payment intent, invoice, payment or refund with id ${id}`);
  }

  const events = await read('sessions.events', `SELECT version, type, occurred_at FROM ${s('events')} WHERE stream_id = $1 ORDER BY version`, [sessionId]);
  const attempts = (await db.query(`SELECT to_regclass($1) IS NOT NULL AS present`, [`${schemas.sessions}.provider_attempts`]))[0]?.present
    ? await read('sessions.provider_attempts', `SELECT reference, provider, method, status, failure_reason, payment_id, created_at, resolved_at FROM ${s('provider_attempts')} WHERE session_id = $1 ORDER BY created_at`, [sessionId])
    : [];
  const [payment] = await read(
    'sessions.payments',
    `SELECT id::text AS id, method, amount_cents, fee_cents, net_cents, currency, paid_at FROM ${s('payments')} WHERE source_id = $1`,
    [sessionId],
  );
  const paymentId = payment ? String(payment.id) : null;

  const refunds = paymentId
    ? await read(
        'refunds.refunds',
        `SELECT id, amount_cents, currency, status, reason, failure_reason, created_at, completed_at FROM ${qualified(schemas.refunds, 'refunds')} WHERE payment_id = $1::bigint ORDER BY created_at, id`,
        [paymentId],
      )
    : [];
  const refundIds = refunds.map((r) => String(r.id));

  const l = (table: string) => qualified(schemas.ledger, table);
  const postings = await read(
    'ledger.postings',
    `SELECT p.id, p.kind, p.source, p.payment_id, p.amount_cents, p.fee_cents, p.net_cents, p.event_id, p.occurred_at, p.created_at,
            coalesce((SELECT json_agg(json_build_object('account', e.account, 'amount_cents', e.amount_cents::text) ORDER BY e.account) FROM ${l('entries')} e WHERE e.posting_id = p.id), '[]') AS entries
       FROM ${l('postings')} p
      WHERE (p.payment_id = $1 AND $1 IS NOT NULL) OR p.source = ANY($2::text[])
      ORDER BY p.created_at, p.id`,
    [paymentId, [sessionId, ...refundIds]],
  );

  const w = (table: string) => qualified(schemas.webhooks, table);
  const webhookEvents = await read(
    'webhooks.events',
    `SELECT id, type, aggregate_id, sequence, occurred_at, received_at FROM ${w('events')} WHERE aggregate_id = ANY($1::text[]) ORDER BY occurred_at, sequence, id`,
    [[sessionId, ...refundIds]],
  );
  const deliveries = webhookEvents.length
    ? await read(
        'webhooks.deliveries',
        `SELECT d.id, d.event_id, d.endpoint_id, d.kind, d.status, d.attempt_count, d.created_at, d.finished_at, d.failure_reason,
                coalesce((SELECT json_agg(json_build_object('attempt', a.attempt_number, 'attempted_at', a.attempted_at, 'status_code', a.status_code,
                                                            'latency_ms', a.latency_ms, 'error', a.error) ORDER BY a.attempt_number, a.id)
                            FROM ${w('attempts')} a WHERE a.delivery_id = d.id), '[]') AS attempts
           FROM ${w('deliveries')} d WHERE d.event_id = ANY($1::text[]) ORDER BY d.created_at, d.id`,
        [webhookEvents.map((e) => e.id)],
      )
    : [];

  return {
    query: id,
    session: {
      object: kind,
      id: session.id,
      merchant_id: session.merchant_id,
      environment: session.environment,
      status: session.status,
      amount: money(session.amount_cents),
      currency: session.currency,
      ...(kind === 'invoice' ? { number: String(session.number) } : {}),
      created_at: iso(session.created_at),
      paid_at: iso(session.paid_at),
      updated_at: iso(session.updated_at),
    },
    events: events.map((e) => ({ sequence: Number(e.version), type: e.type, occurred_at: iso(e.occurred_at) })),
    provider_attempts: attempts.map((a) => ({
      reference: a.reference,
      provider: a.provider,
      method: a.method,
      status: a.status,
      failure_reason: a.failure_reason,
      payment_id: a.payment_id,
      created_at: iso(a.created_at),
      resolved_at: iso(a.resolved_at),
    })),
    payment: payment
      ? { id: paymentId, method: payment.method, amount: money(payment.amount_cents), fee: money(payment.fee_cents), net: money(payment.net_cents), currency: payment.currency, paid_at: iso(payment.paid_at) }
      : null,
    postings: postings.map((p) => ({
      id: p.id,
      kind: p.kind,
      source: p.source,
      payment_id: p.payment_id,
      amount: money(p.amount_cents),
      fee: money(p.fee_cents),
      net: money(p.net_cents),
      event_id: p.event_id,
      occurred_at: iso(p.occurred_at),
      created_at: iso(p.created_at),
      entries: (p.entries as Array<{ account: string; amount_cents: string }>).map((e) => ({ account: e.account, amount: money(e.amount_cents) })),
    })),
    refunds: refunds.map((r) => ({
      id: r.id,
      amount: money(r.amount_cents),
      currency: r.currency,
      status: r.status,
      reason: r.reason,
      failure_reason: r.failure_reason,
      created_at: iso(r.created_at),
      completed_at: iso(r.completed_at),
    })),
    webhook_events: webhookEvents.map((e) => ({
      id: e.id,
      type: e.type,
      object_id: e.aggregate_id,
      sequence: Number(e.sequence),
      occurred_at: iso(e.occurred_at),
      received_at: iso(e.received_at),
      deliveries: deliveries
        .filter((d) => d.event_id === e.id)
        .map((d) => ({
          id: d.id,
          endpoint_id: d.endpoint_id,
          kind: d.kind,
          status: d.status,
          attempt_count: Number(d.attempt_count),
          failure_reason: d.failure_reason,
          created_at: iso(d.created_at),
          finished_at: iso(d.finished_at),
          attempts: (d.attempts as Row[]).map((a) => ({ attempt: a.attempt, attempted_at: new Date(String(a.attempted_at)).toISOString(), status_code: a.status_code, latency_ms: a.latency_ms, error: a.error })),
        })),
    })),
    unreadable,
  };
}

/** The story as an operator reads it: one section per owner, times in UTC. */
export function storyOutput(story: Record<string, unknown>): CommandOutput {
  const st = story as any;
  const lines: string[] = [];
  const session = st.session;
  lines.push(
    `${session.object === 'invoice' ? `Invoice ${session.id} (no. ${session.number})` : `Payment intent ${session.id}`} of ${session.merchant_id} (${session.environment}): ${session.status}, ${session.amount} ${session.currency}, created ${session.created_at}`,
  );
  lines.push('', 'Events (sessions):');
  for (const e of st.events) lines.push(`  #${e.sequence}  ${e.occurred_at}  ${e.type}`);
  if (st.provider_attempts.length) {
    lines.push('', 'Provider attempts (sessions):');
    for (const a of st.provider_attempts) lines.push(`  ${a.reference}  ${a.provider}/${a.method}  ${a.status}${a.failure_reason ? ` (${a.failure_reason})` : ''}  ${a.created_at}${a.resolved_at ? ` → ${a.resolved_at}` : ''}`);
  }
  lines.push('');
  lines.push(st.payment ? `Payment ${st.payment.id} (${st.payment.method}): ${st.payment.amount} ${st.payment.currency}, fee ${st.payment.fee}, net ${st.payment.net}, paid ${st.payment.paid_at}` : 'Payment: none');
  lines.push('', 'Ledger postings:');
  if (!st.postings.length) lines.push('  none');
  for (const p of st.postings) {
    lines.push(`  ${p.id}  ${p.kind}  amount ${p.amount}, fee ${p.fee}, net ${p.net}  ${p.created_at}${p.event_id ? `  (event ${p.event_id})` : ''}`);
    for (const e of p.entries) lines.push(`      ${e.account}  ${e.amount}`);
  }
  lines.push('', 'Refunds:');
  if (!st.refunds.length) lines.push('  none');
  for (const r of st.refunds) lines.push(`  ${r.id}  ${r.status}  ${r.amount} ${r.currency}  ${r.created_at}${r.completed_at ? ` → ${r.completed_at}` : ''}${r.failure_reason ? `  (${r.failure_reason})` : ''}`);
  lines.push('', 'Webhooks:');
  if (!st.webhook_events.length) lines.push('  none');
  for (const e of st.webhook_events) {
    lines.push(`  ${e.id}  ${e.type}  #${e.sequence} of ${e.object_id}  ${e.occurred_at}`);
    if (!e.deliveries.length) lines.push('    no endpoint subscribed');
    for (const d of e.deliveries) {
      lines.push(`    delivery ${d.id} to ${d.endpoint_id} (${d.kind}): ${d.status} after ${d.attempt_count} attempt${d.attempt_count === 1 ? '' : 's'}${d.failure_reason ? ` (${d.failure_reason})` : ''}`);
      for (const a of d.attempts) lines.push(`      attempt ${a.attempt}  ${a.attempted_at}  ${a.status_code ?? 'no answer'}${a.latency_ms !== null ? ` in ${a.latency_ms} ms` : ''}${a.error ? `  ${a.error}` : ''}`);
    }
  }
  for (const u of st.unreadable) lines.push('', `Not shown: ${u.part} could not be read (${u.reason})`);
  return { json: story, lines };
}
