import { ArgumentMetadata, PipeTransform } from '@nestjs/common';

/**
 * A body that may be left out entirely (no content, whatever the Content-Type): validated as `{}` then. JSON `null`
 * is a body, and not an object: 400 as on every other route.
 */
export class OptionalBodyPipe implements PipeTransform {
  constructor(private readonly inner: PipeTransform) {}

  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    return this.inner.transform(value === undefined ? {} : value, metadata);
  }
}
