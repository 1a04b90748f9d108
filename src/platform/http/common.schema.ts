import Joi from 'joi';

/** Amounts and prices: finite JSON numbers above zero (joi also refuses ones past 2^53). */
export const positive = () => Joi.number().greater(0);

export const pageSchema = (defaultSize: number, max = 500) => ({
  page: Joi.number().integer().min(1).default(1),
  pageSize: Joi.number().integer().min(1).max(max).default(defaultSize),
});

export const userId = Joi.string()
  .pattern(/^[A-Za-z0-9_-]{1,64}$/)
  .message('user id: 1-64 of A-Z a-z 0-9 _ -');
