import { randomUUID } from 'node:crypto';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { Stack, startStack, TestMerchant } from '@payments/testing';

// The OpenAPI 3.1 document is generated from the code, carries the spec's patterns, lengths and enums, and real
// responses validate against it.
describe('OpenAPI document', () => {
  let stack: Stack;
  let merchant: TestMerchant;
  let doc: any;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);

  beforeAll(async () => {
    stack = await startStack(['sessions', 'gateway']);
    merchant = await stack.createMerchant({ verified: true, testLimit: 10000 });
    doc = (await stack.call('GET', '/openapi.json')).body;
    ajv.addSchema({ $id: 'openapi.json', components: doc.components });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  function schemaOf(path: string, method: string, status: number): object {
    const response = doc.paths[path]?.[method]?.responses?.[String(status)];
    if (!response) throw new Error(`no ${status} response for ${method.toUpperCase()} ${path}`);
    const schema = response.content['application/json'].schema;
    return JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"openapi.json#/components/'));
  }

  function expectValid(path: string, method: string, res: { status: number; body: unknown }): void {
    const validate = ajv.compile(schemaOf(path, method, res.status));
    if (!validate(res.body)) throw new Error(`${method} ${path} ${res.status}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(res.body)}`);
  }

  it('is OpenAPI 3.1 with the spec\'s limits', () => {
    expect(doc.openapi).toBe('3.1.0');
    const create = doc.components.schemas.CreatePaymentIntentDto;
    expect(create.properties.amount.pattern).toBe('^\\d+(?:\\.\\d{1,2})?$');
    expect(create.properties.external_ref.maxLength).toBe(120);
    expect(create.properties.description.maxLength).toBe(255);
    expect(create.properties.expires_in).toMatchObject({ minimum: 300, maximum: 86400, default: 1800 });
    expect(create.properties.currency.enum).toEqual(['USD']);
    expect(create.required).toEqual(expect.arrayContaining(['amount', 'currency']));
    const customer = doc.components.schemas.CustomerDto;
    expect(customer.properties.name.maxLength).toBe(160);
    expect(customer.properties.city.maxLength).toBe(120);
    const header = doc.paths['/api/v1/payment-intents'].post.parameters.find((p: any) => p.name === 'Idempotency-Key');
    expect(header).toMatchObject({ in: 'header', required: true, schema: { maxLength: 190 } });
    expect(doc.paths['/api/v1/payment-intents/{id}'].get.parameters[0].schema.pattern).toContain('pi_');
  });

  it('serves rendered docs at /docs', async () => {
    const res = await fetch(`${stack.gatewayUrl}/docs`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('swagger');
  });

  it('real responses of every payment-intent and invoice route validate against it', async () => {
    const headers = () => ({ 'idempotency-key': randomUUID() });
    const key = merchant.test_key;
    const intent = await stack.call('POST', '/api/v1/payment-intents', { key, headers: headers(), body: { amount: '12.00', currency: 'USD', metadata: { a: 'b' } } });
    expectValid('/api/v1/payment-intents', 'post', intent);
    expectValid('/api/v1/payment-intents/{id}', 'get', await stack.call('GET', `/api/v1/payment-intents/${intent.body.id}`, { key }));
    expectValid('/api/v1/payment-intents/{id}/simulate', 'post', await stack.call('POST', `/api/v1/payment-intents/${intent.body.id}/simulate`, { key, body: { result: 'succeeded' } }));
    const other = await stack.call('POST', '/api/v1/payment-intents', { key, headers: headers(), body: { amount: '12.00', currency: 'USD' } });
    expectValid('/api/v1/payment-intents/{id}/cancel', 'post', await stack.call('POST', `/api/v1/payment-intents/${other.body.id}/cancel`, { key }));

    const invoice = await stack.call('POST', '/api/v1/invoices', { key, headers: headers(), body: { amount: '12.00', currency: 'USD', customer: { phone: '+15551234567' } } });
    expectValid('/api/v1/invoices', 'post', invoice);
    expectValid('/api/v1/invoices/{id}/simulate', 'post', await stack.call('POST', `/api/v1/invoices/${invoice.body.id}/simulate`, { key, body: { result: 'paid' } }));
    expectValid('/api/v1/invoices/{id}', 'get', await stack.call('GET', `/api/v1/invoices/${invoice.body.id}`, { key }));
  });

  it('error responses validate against the Error shape', async () => {
    const key = merchant.test_key;
    expectValid('/api/v1/payment-intents', 'post', await stack.call('POST', '/api/v1/payment-intents', { key, headers: { 'idempotency-key': randomUUID() }, body: { amount: 'x' } }));
    expectValid('/api/v1/payment-intents/{id}', 'get', await stack.call('GET', '/api/v1/payment-intents/pi_test_missing', { key }));
    expectValid('/api/v1/payment-intents/{id}', 'get', await stack.call('GET', '/api/v1/payment-intents/pi_test_missing', { key: 'pay_test_bad.key' }));
  });
});
