import { API_INFO } from '../src/transport/http/api-docs';
import { buildApiDocument } from '../src/transport/http/openapi/openapi-document';
import { exitQuietlyOnClosedPipe } from './lib/closed-pipe';
import { offlineApp } from './lib/offline-app';

/**
 * `npm run -s openapi > openapi.json`: the API's OpenAPI 3.1 document, as /api/openapi.json serves
 * it, without Redis. Routes it cannot describe fully are named on stderr and the exit code is 1.
 */
exitQuietlyOnClosedPipe();
const { app, close } = offlineApp();
const { document, gaps } = buildApiDocument(app, API_INFO);
close();
process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
for (const gap of gaps) process.stderr.write(`undocumented: ${gap}\n`);
if (gaps.length) process.exitCode = 1;
