import { AuthenticationError, Exchange, ExchangeError, type Dict, type Market } from 'ccxt';
import { exchangeDescription } from './describe';

export type Api = 'public' | 'private';
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * Transport of the ccxt class: the description, how a request is signed (a bearer JWT) and how an
 * error body becomes a ccxt error. The unified methods live in the subclasses.
 */
export class ExchangeBackendBase extends Exchange {
  override describe(): Dict {
    return this.deepExtend(super.describe(), exchangeDescription());
  }

  /** The JWT the service checks: `apiKey`, else `token` (ccxt's own credential of that name). */
  protected bearerToken(): string {
    const jwt = this.apiKey || this.token;
    if (!jwt) {
      throw new AuthenticationError(`${this.id} requires a JWT, given as the apiKey or token credential`);
    }
    return jwt;
  }

  override sign(path: string, api: Api = 'public', method = 'GET', params: Dict = {}, headers?: Dict, _body?: string): Dict {
    const query = this.omit(params, this.extractParams(path));
    let url = `${this.implodeHostname(this.urls.api.rest as string)}/${this.implodeParams(path, params)}`;
    let body: string | undefined;
    const out: Dict = { ...(headers ?? {}) };
    if (method === 'GET' || method === 'DELETE') {
      // repeated keys for arrays (`Statuses=10&Statuses=50`), as the futures lists read them
      if (Object.keys(query).length) url += `?${this.urlencodeWithArrayRepeat(query)}`;
    } else {
      body = this.json(query);
      out['Content-Type'] = 'application/json';
    }
    if (api === 'private') out.Authorization = `Bearer ${this.bearerToken()}`;
    return { url, method, body, headers: out };
  }

  /** `{"error":{"code":…}}` → the ccxt error of that code, else of the HTTP status. */
  override handleErrors(
    status: number,
    _reason: string,
    _url: string,
    _method: string,
    _headers: Dict,
    body: string,
    response: unknown,
  ): undefined {
    if (status < 400) return undefined;
    const code = this.safeString(this.safeDict(response as Dict, 'error'), 'code');
    const feedback = `${this.id} ${body}`;
    if (code !== undefined) this.throwExactlyMatchedException(this.exceptions.exact, code, feedback);
    this.throwExactlyMatchedException(this.httpExceptions, String(status), feedback);
    throw new ExchangeError(feedback);
  }

  /** One REST call; path parameters are taken from `params` by name. */
  protected call(api: Api, method: HttpMethod, path: string, params: Dict = {}): Promise<unknown> {
    return this.request(path, api, method, params);
  }

  /** Every page of a service list (`{items, totalPages}` or a bare array when `pageKey` is PascalCase). */
  protected async allPages(api: Api, path: string, params: Dict, paging: 'page' | 'Page'): Promise<Dict[]> {
    const out: Dict[] = [];
    const sizeKey = paging === 'page' ? 'pageSize' : 'PageSize';
    for (let page = 1; ; page++) {
      const res = await this.call(api, 'GET', path, { ...params, [paging]: page, [sizeKey]: 500 });
      const items = (Array.isArray(res) ? res : this.safeList(res as Dict, 'items', [])) as Dict[];
      out.push(...items);
      const totalPages = Array.isArray(res) ? undefined : this.safeInteger(res as Dict, 'totalPages');
      if (items.length < 500 || (totalPages !== undefined && page >= totalPages)) return out;
    }
  }

  /** The service's pair code of a market (`BTC_USDT`); spot and futures markets share codes. */
  protected pairCode(market: Market): string {
    return (market as NonNullable<Market>).id as string;
  }

  protected isFutures(market: Market): boolean {
    return market !== undefined && market.swap === true;
  }

  /**
   * ccxt's order of every list: oldest first (its validators refuse another), ties by id (ids rise);
   * `limit` keeps the newest, as exchanges answer a limited list.
   */
  protected ascending<T extends { timestamp?: number; id?: string }>(items: T[], since?: number, limit?: number): T[] {
    const sorted = [...items].sort((a, b) => (a.timestamp ?? 0) - (b.timestamp ?? 0) || Number(a.id) - Number(b.id));
    const from = since === undefined ? sorted : sorted.filter((x) => (x.timestamp ?? 0) >= since);
    return limit === undefined ? from : from.slice(Math.max(0, from.length - limit));
  }

  protected iso(ms: number | undefined): string | undefined {
    return ms === undefined ? undefined : (this.iso8601(ms) as string);
  }
}
