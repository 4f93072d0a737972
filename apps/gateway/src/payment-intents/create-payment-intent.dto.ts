import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayNotEmpty, ArrayUnique, IsArray, IsIn, IsOptional } from 'class-validator';
import { ExpiresIn, SessionParamsDto } from '../sessions-api/session-params.dto';

export const INTENT_METHODS = ['togo', 'lahza', 'crypto'] as const;

/** createPaymentIntent's body. Extra top-level fields are allowed (and dropped), as the spec says. */
export class CreatePaymentIntentDto extends SessionParamsDto {
  @ApiPropertyOptional({ type: [String], enum: INTENT_METHODS, uniqueItems: true, description: "defaults to the merchant's enabled methods" })
  @IsOptional()
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(INTENT_METHODS.length)
  @ArrayUnique({ message: 'methods must not repeat a method.' })
  @IsIn(INTENT_METHODS, { each: true, message: 'methods must each be one of togo, lahza, crypto.' })
  methods?: Array<(typeof INTENT_METHODS)[number]>;

  @ExpiresIn(1800)
  expires_in?: number;
}
