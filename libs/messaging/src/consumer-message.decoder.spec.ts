import type { KafkaMessage } from 'kafkajs';
import { decodeMessage } from './consumer-message.decoder';
import { envelopeHeaders, WALLET_PAYMENT_HEADER } from './outbox.writer';

const envelope = (data: Record<string, unknown>) => ({
  id: 'evt_1',
  type: 'payment_intent.succeeded',
  schema_version: 1,
  aggregate_type: 'payment_intent',
  aggregate_id: 'pi_test_1',
  sequence: 3,
  merchant_id: 'acct_1',
  environment: 'test' as const,
  occurred_at: '2026-01-01T00:00:00.000Z',
  correlation_id: 'req_1',
  causation_id: null,
  data,
});

describe('outbox headers and the consumer passing over by them', () => {
  it('marks a payment paid from a wallet (whether, never which) and nothing else', () => {
    const walletPaid = envelopeHeaders(envelope({ payment: { id: '1', wallet_id: 'wal_test_abc' } }));
    expect(walletPaid[WALLET_PAYMENT_HEADER]).toBe('true');
    expect(JSON.stringify(walletPaid)).not.toContain('wal_test_abc');
    expect(envelopeHeaders(envelope({ payment: { id: '1' } }))).not.toHaveProperty(WALLET_PAYMENT_HEADER);
    expect(envelopeHeaders(envelope({ payment: { id: '1', wallet_id: null } }))).not.toHaveProperty(WALLET_PAYMENT_HEADER);
    expect(envelopeHeaders(envelope({}))).not.toHaveProperty(WALLET_PAYMENT_HEADER);
  });

  it('leaves the value unread when acts says no from the headers, and marks the message skipped', () => {
    const headers = { 'event-id': 'evt_1', 'event-type': 'payment_intent.succeeded', [WALLET_PAYMENT_HEADER]: 'true' };
    const message = { offset: '7', value: Buffer.from('not json'), headers } as unknown as KafkaMessage;
    const seen: Array<Record<string, string>> = [];
    const decoded = decodeMessage('t', 0, message, (_type, h) => {
      seen.push({ ...h });
      return h[WALLET_PAYMENT_HEADER] !== 'true';
    });
    expect(decoded).toMatchObject({ ok: true, skipped: true, envelope: { id: 'evt_1', type: 'payment_intent.succeeded' } });
    expect(seen).toEqual([headers]);
    // Without the mark the value is read (here: refused as invalid, as any unreadable value is).
    const unmarked = { offset: '8', value: Buffer.from('not json'), headers: { 'event-id': 'evt_2', 'event-type': 'payment_intent.succeeded' } } as unknown as KafkaMessage;
    expect(decodeMessage('t', 0, unmarked, (_type, h) => h[WALLET_PAYMENT_HEADER] !== 'true')).toMatchObject({ ok: false });
  });
});
