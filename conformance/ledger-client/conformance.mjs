#!/usr/bin/env node
// Calls a JSON Ledger API v2 node (meant for `ledger serve`) with Canton's
// official TypeScript client, @canton-network/core-ledger-client, and checks
// what it answers. One line per check, then "N passed, N failed, N skipped";
// the exit status is 1 when any check failed, 2 on a usage error.
//
// Environment:
//   LEDGER_URL          base URL of the node, e.g. http://127.0.0.1:7575 (required)
//   LEDGER_ADMIN_TOKEN  token of a ParticipantAdmin user (omit for --auth none)
//   LEDGER_USER_ID      user the script creates and grants rights to
//                       (default conformance-<run id>)
//   LEDGER_USER_TOKEN   token for LEDGER_USER_ID; part 2 submits with it
//                       (default: the admin token)
//   LEDGER_LOG_LEVEL    the client's log level (pino; default warn)
//   LEDGER_TRACE_FILE   append every HTTP exchange (request, status, body) to
//                       this file as JSON lines

import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { LedgerClient } from '@canton-network/core-ledger-client';
import { pino } from 'pino';
import { Exchanges, Runner } from './lib/harness.mjs';
import { registerPart1 } from './steps/part1.mjs';
import { registerPart2 } from './steps/part2.mjs';
import { registerPart3 } from './steps/part3.mjs';
import { registerPackages } from './steps/packages.mjs';

function usage(msg) {
  process.stderr.write(`conformance: ${msg}\nset LEDGER_URL (and LEDGER_ADMIN_TOKEN for a node with auth); see README.md\n`);
  process.exit(2);
}

const env = process.env;
let baseUrl;
try {
  baseUrl = new URL(env.LEDGER_URL ?? '');
} catch {
  usage(env.LEDGER_URL ? `LEDGER_URL ${JSON.stringify(env.LEDGER_URL)} is not a URL` : 'LEDGER_URL is not set');
}

const logger = pino({ level: env.LEDGER_LOG_LEVEL || 'warn' }, pino.destination(2));

// staticToken is the smallest AccessTokenProvider: the client only asks it
// for the token to put in the Authorization header.
function staticToken(token, userId) {
  return {
    getAccessToken: async () => token,
    getAuthContext: async () => ({ userId, accessToken: token }),
  };
}

const run = randomBytes(4).toString('hex');
const userId = env.LEDGER_USER_ID || `conformance-${run}`;
const adminToken = env.LEDGER_ADMIN_TOKEN ?? '';
const client = new LedgerClient({ baseUrl, logger, accessTokenProvider: staticToken(adminToken, 'participant_admin') });
const userClient = env.LEDGER_USER_TOKEN
  ? new LedgerClient({ baseUrl, logger, accessTokenProvider: staticToken(env.LEDGER_USER_TOKEN, userId) })
  : null;

const trace = env.LEDGER_TRACE_FILE ? { write: (s) => appendFileSync(env.LEDGER_TRACE_FILE, s) } : null;
const exchanges = new Exchanges({ trace });
exchanges.install();
const runner = new Runner({ exchanges });
registerPart1(runner);
registerPart2(runner);
registerPart3(runner);
registerPackages(runner);

const ctx = {
  run,
  userId,
  adminToken,
  client,
  userClient,
  baseUrl,
  userToken: env.LEDGER_USER_TOKEN || adminToken,
  // userApi is the client part 2 submits with: the user's own when given.
  userApi: () => userClient ?? client,
};

process.stdout.write(`conformance: ${baseUrl.href} with @canton-network/core-ledger-client, run ${run}, user ${userId}\n`);
await runner.runAll(ctx);
process.stdout.write(runner.summary() + '\n');
// Exit explicitly: a timed-out awaitCompletion keeps polling in the background.
process.exit(runner.failed > 0 ? 1 : 0);
