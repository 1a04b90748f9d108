// Checks an OpenAPI document against the specification's JSON schema and prints the result as JSON.
// An .mjs run in a child process because @seriousme/openapi-schema-validator is ESM-only, and
// jest's CommonJS runtime cannot import() it without --experimental-vm-modules.
// Usage: node test/support/validate-openapi.mjs < document.json
// Prints {"version": "3.1", "valid": true} or {..., "valid": false, "errors": [...]}.
import process from 'node:process';
import { text } from 'node:stream/consumers';
import { Validator } from '@seriousme/openapi-schema-validator';

const validator = new Validator();
const result = await validator.validate(JSON.parse(await text(process.stdin)));
process.stdout.write(JSON.stringify({ version: validator.version, ...result }));
