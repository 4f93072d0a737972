import { ArgumentMetadata, PipeTransform } from '@nestjs/common';

/** A body that may be left out entirely (no content): validated as `{}` then. */
export class OptionalBodyPipe implements PipeTransform {
  constructor(private readonly inner: PipeTransform) {}

  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    return this.inner.transform(value === undefined || value === null ? {} : value, metadata);
  }
}
