// Part 2 of the conformance script: prepare -> sign -> execute -> completions,
// and submit-and-wait-for-transaction-tree. Each step skips, with a note,
// while the node answers its endpoint with a plain 404.

import { randomUUID } from 'node:crypto';
import { awaitCompletion, promiseWithTimeout } from '@canton-network/core-ledger-client';
import { PreparedTransaction } from '@canton-network/core-ledger-proto';
import { signEd25519 } from '../lib/crypto.mjs';

// A template the node has never seen: `ledger serve` accepts any template id
// and stores create arguments as given (its generic contract model).
const TEMPLATE = '#conformance:Conformance:Note';
const COMPLETION_TIMEOUT_MS = 20000;

export function registerPart2(runner) {
  runner.step('prepare', ['external party onboarding'], async (ctx, check) => {
    const ext = ctx.external;
    const commandId = `conformance-prepare-${ctx.run}`;
    let resp;
    try {
      resp = await ctx.userApi().post('/v2/interactive-submission/prepare', {
        userId: ctx.userId,
        commandId,
        commands: [{ CreateCommand: { templateId: TEMPLATE, createArguments: { owner: ext.party, text: 'prepared' } } }],
        actAs: [ext.party],
        readAs: [],
        disclosedContracts: [],
        synchronizerId: '',
        packageIdSelectionPreference: [],
        verboseHashing: false,
        hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
      });
    } catch (err) {
      check.unlessServed(err);
    }
    const hash = Buffer.from(resp.preparedTransactionHash ?? '', 'base64');
    check.that('preparedTransactionHash is 32 bytes', hash.length === 32, `${hash.length} bytes`);
    check.that('hashingSchemeVersion is V2', resp.hashingSchemeVersion === 'HASHING_SCHEME_VERSION_V2', `got ${resp.hashingSchemeVersion}`);
    const tx = PreparedTransaction.fromBinary(Buffer.from(resp.preparedTransaction ?? '', 'base64'));
    const info = tx.metadata?.submitterInfo;
    check.equal('the prepared transaction acts as the external party', info?.actAs, [ext.party]);
    check.that('the prepared transaction carries the command id', info?.commandId === commandId, `got ${info?.commandId}`);
    check.that('the prepared transaction has one root node', tx.transaction?.roots?.length === 1, `roots ${JSON.stringify(tx.transaction?.roots)}`);
    ctx.prepared = { resp, hash, commandId };
  });

  runner.step('sign and execute', ['prepare'], async (ctx, check) => {
    const ext = ctx.external;
    const { resp, hash } = ctx.prepared;
    ctx.prepared.ledgerEnd = (await ctx.client.get('/v2/state/ledger-end')).offset;
    const submissionId = randomUUID();
    let out;
    try {
      out = await ctx.userApi().post('/v2/interactive-submission/execute', {
        preparedTransaction: resp.preparedTransaction,
        partySignatures: {
          signatures: [{
            party: ext.party,
            signatures: [{
              format: 'SIGNATURE_FORMAT_CONCAT',
              signature: signEd25519(ext.privateKey, hash).toString('base64'),
              signedBy: ext.fingerprint,
              signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_ED25519',
            }],
          }],
        },
        deduplicationPeriod: { Empty: {} },
        submissionId,
        userId: ctx.userId,
        hashingSchemeVersion: resp.hashingSchemeVersion,
      });
    } catch (err) {
      check.unlessServed(err);
    }
    check.equal('execute answers {}', out, {});
  });

  runner.step('completions', ['sign and execute'], async (ctx, check) => {
    const ext = ctx.external;
    let completion;
    try {
      completion = await promiseWithTimeout(
        awaitCompletion(ctx.userApi(), ctx.prepared.ledgerEnd, ext.party, ctx.userId, ctx.prepared.commandId),
        COMPLETION_TIMEOUT_MS,
        `no completion for ${ctx.prepared.commandId} within ${COMPLETION_TIMEOUT_MS} ms`);
    } catch (err) {
      check.unlessServed(err);
    }
    check.that('awaitCompletion finds the command\'s completion', completion?.commandId === ctx.prepared.commandId);
    check.that('the completion succeeded (status code 0)', (completion?.status?.code ?? 0) === 0, `status ${JSON.stringify(completion?.status)}`);
    check.that('the completion has an updateId', typeof completion?.updateId === 'string' && completion.updateId !== '');
    check.that('the completion offset is after the ledger end before execute', completion?.offset > ctx.prepared.ledgerEnd,
      `offset ${completion?.offset}, ledger end was ${ctx.prepared.ledgerEnd}`);
    check.equal('the completion acts as the external party', completion?.actAs, [ext.party]);
  });

  runner.step('submit-and-wait-for-transaction-tree', ['users and rights'], async (ctx, check) => {
    const commandId = `conformance-tree-${ctx.run}`;
    let resp;
    try {
      resp = await ctx.userApi().post('/v2/commands/submit-and-wait-for-transaction-tree', {
        commands: [{ CreateCommand: { templateId: TEMPLATE, createArguments: { owner: ctx.party, text: 'submitted' } } }],
        commandId,
        actAs: [ctx.party],
        userId: ctx.userId,
        readAs: [],
        disclosedContracts: [],
        packageIdSelectionPreference: [],
      });
    } catch (err) {
      check.unlessServed(err);
    }
    const tree = resp.transactionTree;
    check.that('the tree has the command id', tree?.commandId === commandId, `got ${tree?.commandId}`);
    check.that('the tree has an updateId and a positive offset', Boolean(tree?.updateId) && tree?.offset > 0);
    const events = Object.values(tree?.eventsById ?? {});
    const created = events.map((e) => e.CreatedTreeEvent?.value).filter(Boolean);
    check.that('the tree has one CreatedTreeEvent', events.length === 1 && created.length === 1, `events ${JSON.stringify(tree?.eventsById)}`);
    check.that('the created event names the template', String(created[0]?.templateId ?? '').endsWith(':Conformance:Note'),
      `templateId ${created[0]?.templateId}`);
    check.that('the acting party signs the contract', (created[0]?.signatories ?? []).includes(ctx.party),
      `signatories ${JSON.stringify(created[0]?.signatories)}`);
  });
}
