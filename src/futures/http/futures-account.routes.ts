import { Router, type RequestHandler } from 'express';
import Joi from 'joi';
import type { WalletService } from '../../wallet';
import { principal } from '../../platform/http/principal';
import { routeDocs } from '../../platform/http/route-doc';
import { valid, validate } from '../../platform/http/validate';
import { createAccountSchema, transferSchema } from './futures.schema';
import { futuresAccountDtoSchema, transferResultDtoSchema } from './futures-dto.schema';
import type { CreateAccountRequest, FuturesAccountService, TransferRequest } from '../futures-account.service';

const doc = routeDocs('Wallet and futures accounts');

/** Futures accounts (docs/api-contract.md#operator-routes): and transfers between them and the wallet. */
export function futuresAccountRoutes(
  accounts: FuturesAccountService,
  wallets: Pick<WalletService, 'balances'>,
  auth: RequestHandler,
): Router {
  const r = Router();
  const createDoc = doc({
    summary: 'Open a futures account',
    description:
      'The margin currency must be the quote of a futures pair, the leverage within those pairs\' maximum (422 otherwise).',
    response: futuresAccountDtoSchema,
    errors: [422],
  });
  r.post('/api/futures/accounts', createDoc, auth, validate({ body: createAccountSchema }), async (req, res) => {
    res.json(await accounts.create(principal(req).userId, valid<CreateAccountRequest>(res, 'body')));
  });
  const listDoc = doc({ summary: "The caller's futures accounts", response: Joi.array().items(futuresAccountDtoSchema) });
  r.get('/api/futures/accounts', listDoc, auth, async (req, res) => {
    res.json(await accounts.list(principal(req).userId));
  });
  const transferDoc = doc({
    summary: 'Move funds between the wallet (null) and the caller\'s futures accounts',
    description:
      'null stands for the wallet; source and target must differ. An account that is not the caller\'s is a 404; more than is free to move, or margin held by positions, is a 422.',
    response: transferResultDtoSchema,
    errors: [404, 422],
  });
  r.post('/api/wallet/transfer', transferDoc, auth, validate({ body: transferSchema }), async (req, res) => {
    const userId = principal(req).userId;
    await accounts.transfer(userId, valid<TransferRequest>(res, 'body'));
    res.json({ accounts: await accounts.list(userId), wallet: await wallets.balances(userId) });
  });
  return r;
}
