import { readFileSync } from 'node:fs';
import Joi from 'joi';
import type { Logger } from '../platform/config/logger';
import type { Currency } from '../domain/market';
import type { MarketService, PairRequest } from './market.service';
import { currencySchema, pairSchema } from './market.schema';

export interface MarketsFile {
  currencies: Currency[];
  pairs: PairRequest[];
}

const fileSchema = Joi.object({
  currencies: Joi.array().items(currencySchema).required(),
  pairs: Joi.array().items(pairSchema).required(),
});

/** Creates the currencies and pairs of MARKETS_FILE that do not exist yet; existing ones stay as they are. */
export async function seedMarkets(file: string, markets: MarketService, log: Logger): Promise<void> {
  const raw = JSON.parse(readFileSync(file, 'utf8'));
  const { value, error } = fileSchema.validate(raw, { abortEarly: false });
  if (error) throw new Error(`Invalid MARKETS_FILE ${file}: ${error.message}`);
  const data = value as MarketsFile;
  let created = 0;
  for (const c of data.currencies) if ((await markets.createCurrency(c)).created) created++;
  for (const p of data.pairs) if ((await markets.createPair(p)).created) created++;
  log.info({ file, created }, 'markets seeded');
}
