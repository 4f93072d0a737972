import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayNotEmpty, ArrayUnique, IsArray, IsIn, IsOptional } from 'class-validator';
import { INTENT_METHODS, PAYMENT_INTENT_PARAMS_SCHEMA } from '@payments/contracts';
import { ExpiresIn, SessionParamsDto } from '../session-routes/session-params.dto';
import { schemaProperty } from '../validation/schema-property';


/** createPaymentIntent's body. Extra top-level fields are allowed (and dropped), as the spec says. */
export class CreatePaymentIntentDto extends SessionParamsDto {
  @ApiPropertyOptional(schemaProperty(PAYMENT_INTENT_PARAMS_SCHEMA.properties.methods, { description: "defaults to the merchant's enabled methods" }))
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
