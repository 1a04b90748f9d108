/** The ccxt exchange class of this service; see README.md beside this file. */
export { ExchangeBackend, ExchangeBackend as default } from './exchange';
