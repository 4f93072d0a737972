import { AsyncResource } from 'node:async_hooks';

type AnyFunction = (this: unknown, ...args: unknown[]) => unknown;

/**
 * `AsyncResource.bind` as newer Node releases have it. Node 20's also gives each bound function a deprecated
 * `asyncResource` property (DEP0172) whose getter and setter it wraps in `util.deprecate` on every call: about
 * 12 µs per bind against under 1 µs without (nodejs/node#58218; the property is gone from Node 25, #58618).
 * Fastify binds once per request body and Nest once per interceptor and once more per handler, so the gateway
 * paid it several times per request. Context is carried exactly as before: the bound function runs in the
 * async scope captured when it was bound.
 */
export function installLeanAsyncResourceBind(): void {
  if (AsyncResource.prototype.bind === (leanBind as unknown)) return;
  AsyncResource.prototype.bind = leanBind as unknown as AsyncResource['bind'];
  AsyncResource.bind = function bind(fn: AnyFunction, type?: string, thisArg?: unknown) {
    return leanBind.call(new AsyncResource(type || fn.name || 'bound-anonymous-fn'), fn, thisArg);
  } as unknown as typeof AsyncResource.bind;
}

function leanBind(this: AsyncResource, fn: AnyFunction, thisArg?: unknown): AnyFunction {
  if (typeof fn !== 'function') throw new TypeError(`The "fn" argument must be of type function. Received ${typeof fn}`);
  const resource = this;
  const bound =
    thisArg === undefined
      ? function (this: unknown, ...args: unknown[]) {
          return resource.runInAsyncScope(fn, this, ...args);
        }
      : resource.runInAsyncScope.bind(resource, fn, thisArg);
  Object.defineProperty(bound, 'length', { configurable: true, enumerable: false, value: fn.length, writable: false });
  return bound as AnyFunction;
}
