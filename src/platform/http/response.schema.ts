import Joi from 'joi';
import type { PagedResult } from '../../domain/paging';

/**
 * Building blocks of the response schemas the API reference shows (documentation only, never run
 * against a response). A DTO schema is written against the DTO's TypeScript interface with
 * `Joi.object<Dto, true>`, so the compiler refuses a field the interface lacks or a missing one.
 */

/** A response object under a name of its own in the reference; every key is present unless marked optional. */
export function dtoSchema<T extends Joi.ObjectSchema>(name: string, schema: T): T {
  return schema.prefs({ presence: 'required' }).meta({ component: name }) as T;
}

/** ISO 8601 date-time as the API writes it (`toISOString()`). */
export const isoTimestamp = () => Joi.string().isoDate();

export const integer = () => Joi.number().integer();

/** The paged-list wrapper (`Paged…` in the OpenAPI document) around a list of `item`. */
export function pagedSchema<T>(name: string, item: Joi.ObjectSchema<T>): Joi.ObjectSchema<PagedResult<T>> {
  return dtoSchema(
    `Paged${name}`,
    Joi.object<PagedResult<T>, true>({
      items: Joi.array().items(item),
      page: integer().min(1),
      pageSize: integer().min(1),
      totalCount: integer().min(0),
      totalPages: integer().min(0),
    }),
  );
}

/** The error body of docs/api-contract.md#errors, the same for every status. */
export const errorBodySchema = dtoSchema(
  'ErrorBody',
  Joi.object({
    error: Joi.object({
      code: Joi.string().pattern(/^[A-Z][A-Z0-9_]*$/).description('Stable UPPER_SNAKE code, e.g. VALIDATION_FAILED'),
      message: Joi.string(),
      details: Joi.array()
        .items(Joi.object({ path: Joi.string(), message: Joi.string() }))
        .description('One entry per invalid field (empty when the error is not about a field)'),
    }),
  }),
);
