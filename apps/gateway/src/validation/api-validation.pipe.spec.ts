import { ArgumentMetadata } from '@nestjs/common';
import { ApiError } from '@payments/platform';
import { IsEmail, IsInt, IsOptional, IsString, Length, Matches, Max, MaxLength, Min } from 'class-validator';
import { apiValidationPipe } from './api-validation.pipe';
import { IsHttpsUrl } from './is-https-url.validator';
import { IsMetadata } from './is-metadata.validator';
import { IsMoneyString } from './is-money-string.validator';
import { NestedObject } from './nested-object.decorator';

class CustomerDto {
  @IsOptional()
  @IsString()
  @MaxLength(160)
  name?: string;

  @IsOptional()
  @IsEmail()
  email?: string;

  @IsOptional()
  @IsString()
  @Length(2, 2)
  @Matches(/^[A-Za-z]{2}$/, { message: 'customer.country must be a two-letter country code.' })
  country?: string;
}

class CreateDto {
  @IsMoneyString()
  amount!: string;

  @IsOptional()
  @IsHttpsUrl()
  success_url?: string;

  @IsOptional()
  @NestedObject(() => CustomerDto)
  customer?: CustomerDto;

  @IsOptional()
  @IsMetadata()
  metadata?: Record<string, unknown>;

  @IsOptional()
  @IsInt()
  @Min(300)
  @Max(86400)
  expires_in?: number;
}

const body: ArgumentMetadata = { type: 'body', metatype: CreateDto };

async function failure(value: unknown, forbidUnknown = true): Promise<{ param?: string; message: string; code: string }> {
  try {
    await apiValidationPipe({ forbidUnknown }).transform(value, body);
  } catch (error) {
    if (error instanceof ApiError) return { code: error.code, param: error.param, message: error.message };
    throw error;
  }
  throw new Error('expected a validation failure');
}

describe('apiValidationPipe', () => {
  it('returns a DTO instance for a valid body', async () => {
    const dto = await apiValidationPipe({ forbidUnknown: true }).transform(
      { amount: '74', customer: { email: 'a@example.com' }, metadata: { order: 12 }, expires_in: 300 },
      body,
    );
    expect(dto).toBeInstanceOf(CreateDto);
    expect((dto as CreateDto).customer).toBeInstanceOf(CustomerDto);
  });

  it('names the dotted path of the first failing field', async () => {
    expect(await failure({ amount: '10.00', customer: { email: 'nope' } })).toEqual({
      code: 'invalid_request',
      param: 'customer.email',
      message: 'customer.email must be an email.',
    });
    expect(await failure({ amount: '10.00', customer: { country: 'USA' } })).toMatchObject({ param: 'customer.country' });
    // A message that already names the full path says it once.
    expect(await failure({ amount: '10.00', customer: { country: 'U1' } })).toMatchObject({
      param: 'customer.country',
      message: 'customer.country must be a two-letter country code.',
    });
  });

  it('explains MoneyString problems, bounds included', async () => {
    expect(await failure({})).toMatchObject({ param: 'amount' });
    expect(await failure({ amount: 10 })).toMatchObject({ param: 'amount', message: expect.stringContaining('two decimals') });
    expect(await failure({ amount: '1.234' })).toMatchObject({ param: 'amount' });
    expect(await failure({ amount: '0.49' })).toMatchObject({ param: 'amount', message: 'amount must be at least 0.50.' });
    expect(await failure({ amount: '1000000' })).toMatchObject({ param: 'amount', message: 'amount must be at most 999999.99.' });
  });

  it('does not convert types implicitly', async () => {
    expect(await failure({ amount: '10.00', expires_in: '300' })).toMatchObject({ param: 'expires_in' });
    expect(await failure({ amount: '10.00', expires_in: 299 })).toMatchObject({ param: 'expires_in' });
  });

  it('accepts only https URLs', async () => {
    expect(await failure({ amount: '10.00', success_url: 'http://example.com' })).toMatchObject({ param: 'success_url' });
    expect(await failure({ amount: '10.00', success_url: 'https://' })).toMatchObject({ param: 'success_url' });
    await expect(apiValidationPipe({ forbidUnknown: true }).transform({ amount: '1.00', success_url: 'https://shop.example/ok?x=1' }, body)).resolves.toBeInstanceOf(CreateDto);
  });

  it('applies the metadata limits', async () => {
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i]));
    expect(await failure({ amount: '1.00', metadata: many })).toMatchObject({ param: 'metadata', message: expect.stringContaining('50 keys') });
    expect(await failure({ amount: '1.00', metadata: { ['k'.repeat(41)]: 1 } })).toMatchObject({ param: 'metadata' });
    expect(await failure({ amount: '1.00', metadata: { note: 'x'.repeat(501) } })).toMatchObject({ param: 'metadata' });
    expect(await failure({ amount: '1.00', metadata: ['a'] })).toMatchObject({ param: 'metadata' });
    const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`.padEnd(40, 'x'), 'v'.repeat(500)]));
    await expect(apiValidationPipe({ forbidUnknown: true }).transform({ amount: '1.00', metadata: fifty }, body)).resolves.toBeInstanceOf(CreateDto);
  });

  it('rejects unknown fields, or drops top-level ones when they are allowed; nested ones always fail', async () => {
    expect(await failure({ amount: '1.00', extra: 1 })).toMatchObject({ param: 'extra', message: 'extra is not an accepted field.' });
    const dto = await apiValidationPipe({ forbidUnknown: false }).transform({ amount: '1.00', extra: 1 }, body);
    expect(dto).toEqual(Object.assign(new CreateDto(), { amount: '1.00' }));
    expect(await failure({ amount: '1.00', customer: { email: 'a@example.com', vip: true } }, false)).toMatchObject({
      param: 'customer.vip',
    });
  });

  it('keeps metadata keys named like inherited members and refuses such names as unknown fields', async () => {
    const inherited = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', '__proto__', '__defineGetter__'];
    const metadata = Object.fromEntries(inherited.map((key, i) => [key, `v${i}`]));
    for (const forbidUnknown of [true, false]) {
      const dto = (await apiValidationPipe({ forbidUnknown }).transform(JSON.parse(JSON.stringify({ amount: '1.00', metadata })), body)) as CreateDto;
      expect(Object.entries(dto.metadata!)).toEqual(Object.entries(metadata));
    }
    // JSON.parse, as a request body is read: "__proto__" is an own key there, not the prototype.
    const parsed = (text: string) => JSON.parse(text) as unknown;
    for (const key of inherited) {
      expect(await failure(parsed(`{"amount":"1.00","customer":{"${key}":"x"}}`), false)).toMatchObject({ param: `customer.${key}`, message: `customer.${key} is not an accepted field.` });
      expect(await failure(parsed(`{"amount":"1.00","${key}":"x"}`))).toMatchObject({ param: key });
      expect(await failure(parsed(`{"amount":"1.00","${key}":{"constructor":"x"}}`))).toMatchObject({ param: key });
      const dropped = await apiValidationPipe({ forbidUnknown: false }).transform(parsed(`{"amount":"1.00","${key}":{"constructor":"x"}}`), body);
      expect(dropped).toEqual(Object.assign(new CreateDto(), { amount: '1.00' }));
      expect(Object.hasOwn(dropped as object, key)).toBe(false);
    }
    // Inside an unknown field where those are dropped: dropped with it, whatever it holds.
    const extra = parsed('{"amount":"1.00","order":{"constructor":"x","nested":{"toString":"y"}},"tags":["valueOf"]}');
    expect(await apiValidationPipe({ forbidUnknown: false }).transform(extra, body)).toEqual(Object.assign(new CreateDto(), { amount: '1.00' }));
    expect(await failure(parsed('{"amount":"1.00","order":{"constructor":"x"}}'))).toMatchObject({ param: 'order.constructor' });
    // Inside metadata, at any depth, kept as sent (class-transformer threw on a nested `constructor`).
    const nested = JSON.parse('{"amount":"1.00","metadata":{"nested":{"constructor":"x","toString":"y"}}}') as Record<string, unknown>;
    expect(((await apiValidationPipe({ forbidUnknown: true }).transform(nested, body)) as CreateDto).metadata).toEqual(nested.metadata);
  });

  it('requires nested objects to be objects', async () => {
    expect(await failure({ amount: '1.00', customer: 'bob' })).toMatchObject({ param: 'customer', message: 'customer must be an object.' });
    expect(await failure({ amount: '1.00', customer: [{ name: 'bob' }] })).toMatchObject({ param: 'customer' });
  });

  it('answers 400 for a body that is not a JSON object', async () => {
    for (const value of [undefined, null, 'text', 42, [{ amount: '1.00' }]]) {
      expect(await failure(value)).toEqual({ code: 'invalid_request', param: undefined, message: 'The request body must be a JSON object.' });
    }
  });
});
