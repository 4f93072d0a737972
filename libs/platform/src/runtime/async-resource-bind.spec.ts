import { AsyncLocalStorage, AsyncResource, executionAsyncId } from 'node:async_hooks';
import { installLeanAsyncResourceBind } from './async-resource-bind';

describe('installLeanAsyncResourceBind (AsyncResource.bind without the deprecated per-call property)', () => {
  const original = { prototype: AsyncResource.prototype.bind, static: AsyncResource.bind };
  beforeAll(() => installLeanAsyncResourceBind());
  afterAll(() => {
    AsyncResource.prototype.bind = original.prototype;
    AsyncResource.bind = original.static;
  });

  it('binds without wrapping a deprecated asyncResource getter per call (the cost it removes)', () => {
    const bound = AsyncResource.bind(() => 1);
    expect(Object.getOwnPropertyDescriptor(bound, 'asyncResource')).toBeUndefined();
    expect(Object.getOwnPropertyDescriptor(new AsyncResource('t').bind(() => 1), 'asyncResource')).toBeUndefined();
  });

  it('runs the function in the context captured when it was bound, wherever it is called', async () => {
    const storage = new AsyncLocalStorage<string>();
    const bound = storage.run('request-1', () => AsyncResource.bind(() => storage.getStore()));
    const resource = storage.run('request-2', () => new AsyncResource('t'));
    const viaResource = resource.bind(() => ({ store: storage.getStore(), id: executionAsyncId() }));
    expect(await storage.run('other', () => new Promise((resolve) => setImmediate(() => resolve(bound()))))).toBe('request-1');
    expect(bound()).toBe('request-1');
    expect(viaResource()).toEqual({ store: 'request-2', id: resource.asyncId() });
  });

  it('keeps arguments, return value, `this` (the caller’s, or the one given) and length', () => {
    function summarise(this: unknown, a: number, b: number) {
      return { self: this, sum: a + b };
    }
    const receiver = { name: 'receiver' };
    const fixed = { name: 'fixed' };
    const callerThis = AsyncResource.bind(summarise);
    const givenThis = AsyncResource.bind(summarise, 'described', fixed);
    expect(callerThis.call(receiver, 1, 2)).toEqual({ self: receiver, sum: 3 });
    expect(givenThis.call(receiver, 3, 4)).toEqual({ self: fixed, sum: 7 });
    expect(callerThis.length).toBe(2);
    expect(givenThis.length).toBe(2);
  });

  it('throws for a non-function as Node does, and installing twice changes nothing', () => {
    expect(() => AsyncResource.bind(42 as unknown as () => void)).toThrow(TypeError);
    const installed = AsyncResource.prototype.bind;
    installLeanAsyncResourceBind();
    expect(AsyncResource.prototype.bind).toBe(installed);
  });
});
