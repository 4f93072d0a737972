import { cryptoFields } from './operations-pages';

const state = { address: null, requested_amount: '10.00', received_amount: '0.00', remaining_amount: '10.00', overpayment_amount: '0.00', txid: null };

describe('crypto fields on an intent\'s dashboard page', () => {
  it('none for an intent that never met crypto', () => {
    expect(cryptoFields({ currency: 'USD', payment_method: 'togo', crypto: state })).toEqual([]);
  });

  it('the address, received, still due, the overpayment (marked) and the txid of a crypto payment', () => {
    const paid = cryptoFields({
      currency: 'USD',
      payment_method: 'crypto',
      crypto: { ...state, address: '0xAbC0000000000000000000000000000000000001', received_amount: '11.00', remaining_amount: '0.00', overpayment_amount: '1.00', txid: '0x' + 'ab'.repeat(32) },
    });
    expect(paid.map(([key]) => key)).toEqual(['fieldCryptoAddress', 'fieldCryptoReceived', 'fieldCryptoRemaining', 'fieldCryptoOverpayment', 'fieldTxid']);
    const text = paid.map(([, value]) => String(value)).join('|');
    expect(text).toContain('<code dir="ltr">0xAbC0000000000000000000000000000000000001</code>');
    expect(text).toContain('<strong data-overpayment><span dir="ltr">1.00 USD</span></strong>');
    expect(text).toContain(`<code dir="ltr" data-txid>0x${'ab'.repeat(32)}</code>`);
    // An address given, nothing received yet: the fields show, txid empty.
    const waiting = cryptoFields({ currency: 'USD', payment_method: null, crypto: { ...state, address: '0xAbC0000000000000000000000000000000000001' } });
    expect(waiting.find(([key]) => key === 'fieldTxid')?.[1]).toBeNull();
  });
});
