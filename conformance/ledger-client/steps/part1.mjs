// Part 1 of the conformance script: version, users and rights, parties,
// party update and external party onboarding, each through the official
// client's own methods.

import { asJsCantonError, isJsCantonError, supportedVersions } from '@canton-network/core-ledger-client';
import { Enums_ParticipantPermission, TopologyTransaction } from '@canton-network/core-ledger-proto';
import { fingerprint, multiHash, newKey, signEd25519, unwrapVersioned } from '../lib/crypto.mjs';

const FINGERPRINT = /^1220[0-9a-f]{64}$/;
const RUN_ANNOTATION = 'conformance.ledger.dev/run';
const STEP_ANNOTATION = 'conformance.ledger.dev/step';

// rightKinds lists a rights array as "Kind" or "Kind:party" strings.
function rightKinds(rights) {
  return (rights ?? []).map((r) => {
    const [kind, body] = Object.entries(r.kind ?? {})[0] ?? ['?', {}];
    const party = body?.value?.party;
    return party ? `${kind}:${party}` : kind;
  });
}

// listAllParties walks GET /v2/parties page by page.
async function listAllParties(client) {
  const parties = [];
  let pageToken = '';
  for (let page = 0; page < 1000; page++) {
    const query = { pageSize: '100' };
    if (pageToken) query.pageToken = pageToken;
    const resp = await client.get('/v2/parties', { query });
    parties.push(...(resp.partyDetails ?? []));
    pageToken = resp.nextPageToken ?? '';
    if (!pageToken) return parties;
  }
  throw new Error('GET /v2/parties kept returning a nextPageToken after 1000 pages');
}

export function registerPart1(runner) {
  runner.step('version', [], async (ctx, check) => {
    await ctx.client.init();
    const v = await ctx.client.get('/v2/version');
    check.that('version is a non-empty string', typeof v.version === 'string' && v.version.length > 0, `version ${JSON.stringify(v.version)}`);
    check.that('features.userManagement.supported is true', v.features?.userManagement?.supported === true);
    check.that('features.partyManagement.maxPartiesPageSize is a positive number',
      Number.isInteger(v.features?.partyManagement?.maxPartiesPageSize) && v.features.partyManagement.maxPartiesPageSize > 0);
    const picked = ctx.client.getCurrentClientVersion();
    check.that(`client picked a supported API version (${picked})`, supportedVersions.includes(picked));
    check.that(`version "${v.version}" starts with one of ${supportedVersions.join(', ')}, as Canton's do`,
      supportedVersions.some((p) => v.version.startsWith(p)));
  });

  runner.step('node identity', [], async (ctx, check) => {
    const sync = await ctx.client.getSynchronizerId();
    check.that('getSynchronizerId returns a synchronizer id', typeof sync === 'string' && sync.includes('::'), `got ${JSON.stringify(sync)}`);
    ctx.synchronizerId = sync;
    const pid = await ctx.client.get('/v2/parties/participant-id');
    const [name, ns] = String(pid.participantId).split('::');
    check.that('participant id is NAME::fingerprint', Boolean(name) && FINGERPRINT.test(ns ?? ''), `got ${JSON.stringify(pid.participantId)}`);
    ctx.participantId = pid.participantId;
    const end = await ctx.client.get('/v2/state/ledger-end');
    check.that('ledger end offset is a non-negative integer', Number.isInteger(end.offset) && end.offset >= 0, `got ${JSON.stringify(end.offset)}`);
  });

  runner.step('allocate party', ['node identity'], async (ctx, check) => {
    const hint = `conformance-${ctx.run}`;
    const resp = await ctx.client.post('/v2/parties', {
      partyIdHint: hint,
      identityProviderId: '',
      localMetadata: { resourceVersion: '', annotations: { [RUN_ANNOTATION]: ctx.run } },
      synchronizerId: '',
      userId: '',
    });
    const d = resp.partyDetails;
    const party = d?.party ?? '';
    check.that(`party id is ${hint}::1220…`, party.startsWith(`${hint}::`) && FINGERPRINT.test(party.slice(hint.length + 2)), `got ${JSON.stringify(party)}`);
    check.that('party is local', d?.isLocal === true, `isLocal ${JSON.stringify(d?.isLocal)}`);
    check.equal('annotations given at allocation come back', d?.localMetadata?.annotations, { [RUN_ANNOTATION]: ctx.run });
    check.that('resourceVersion is set', typeof d?.localMetadata?.resourceVersion === 'string' && d.localMetadata.resourceVersion !== '');
    ctx.party = party;
  });

  runner.step('list parties', ['allocate party'], async (ctx, check) => {
    const all = await listAllParties(ctx.client);
    check.that('GET /v2/parties (all pages) lists the new party', all.some((p) => p.party === ctx.party), `${all.length} parties listed`);
    check.that('checkIfPartyExists finds the new party', await ctx.client.checkIfPartyExists(ctx.party));
    const unknown = `nobody-${ctx.run}::1220${'0'.repeat(64)}`;
    check.that('checkIfPartyExists is false for an unknown party', !(await ctx.client.checkIfPartyExists(unknown)));
  });

  runner.step('users and rights', ['allocate party'], async (ctx, check) => {
    const user = await ctx.client.createUser(ctx.userId, ctx.party);
    check.that('createUser returns the user', user?.id === ctx.userId, `got ${JSON.stringify(user)}`);
    check.that('primaryParty round-trips', user?.primaryParty === ctx.party, `got ${JSON.stringify(user?.primaryParty)}`);
    check.that('user is active', user?.isDeactivated === false);

    const granted = await ctx.client.grantRights(ctx.userId, { actAs: [ctx.party], readAs: [ctx.party] });
    const newly = rightKinds(granted.newlyGrantedRights);
    check.that('grantRights reports CanActAs and CanReadAs as newly granted',
      newly.includes(`CanActAs:${ctx.party}`) && newly.includes(`CanReadAs:${ctx.party}`), `got ${JSON.stringify(newly)}`);

    const again = await ctx.client.grantRights(ctx.userId, { actAs: [ctx.party] });
    check.equal('granting an existing right again grants nothing new', again.newlyGrantedRights, []);

    const listed = rightKinds((await ctx.client.get('/v2/users/{user-id}/rights', { path: { 'user-id': ctx.userId } })).rights);
    for (const want of ['ParticipantAdmin', `CanActAs:${ctx.party}`, `CanReadAs:${ctx.party}`]) {
      check.that(`rights list has ${want.split(':')[0]}`, listed.includes(want), `got ${JSON.stringify(listed)}`);
    }

    const revoked = await ctx.client.patch('/v2/users/{user-id}/rights',
      { userId: ctx.userId, identityProviderId: '', rights: [{ kind: { CanReadAs: { value: { party: ctx.party } } } }] },
      { path: { 'user-id': ctx.userId } });
    check.equal('revoking CanReadAs reports it', rightKinds(revoked.newlyRevokedRights), [`CanReadAs:${ctx.party}`]);
    const after = rightKinds((await ctx.client.get('/v2/users/{user-id}/rights', { path: { 'user-id': ctx.userId } })).rights);
    check.that('rights list no longer has CanReadAs', !after.includes(`CanReadAs:${ctx.party}`) && after.includes(`CanActAs:${ctx.party}`), `got ${JSON.stringify(after)}`);

    await ctx.client.grantMasterUserRights(ctx.userId, true, true);
    const master = rightKinds((await ctx.client.get('/v2/users/{user-id}/rights', { path: { 'user-id': ctx.userId } })).rights);
    check.that('grantMasterUserRights adds CanReadAsAnyParty and CanExecuteAsAnyParty',
      master.includes('CanReadAsAnyParty') && master.includes('CanExecuteAsAnyParty'), `got ${JSON.stringify(master)}`);

    const fetched = await ctx.client.get('/v2/users/{user-id}', { path: { 'user-id': ctx.userId } });
    check.that('GET /v2/users/{user-id} returns the user', fetched.user?.id === ctx.userId && fetched.user?.primaryParty === ctx.party);

    const users = await ctx.client.get('/v2/users', { query: { pageSize: '1000' } });
    check.that('GET /v2/users lists the user', (users.users ?? []).some((u) => u.id === ctx.userId));

    if (ctx.userClient) {
      const me = await ctx.userClient.get('/v2/authenticated-user');
      check.that("the user's own token authenticates as the user", me.user?.id === ctx.userId, `got ${JSON.stringify(me.user?.id)}`);
    }

    const missing = await check.rejection('GET of an unknown user', () =>
      ctx.client.get('/v2/users/{user-id}', { path: { 'user-id': `nobody-${ctx.run}` } }));
    if (missing) {
      check.that('an unknown user is 404 USER_NOT_FOUND, decoded by the client',
        missing.status === 404 && isJsCantonError(missing.err) && missing.err.code === 'USER_NOT_FOUND',
        `status ${missing.status}, error ${JSON.stringify(missing.err)}`);
    }
  });

  runner.step('party update', ['allocate party'], async (ctx, check) => {
    const path = { path: { party: ctx.party } };
    const current = (await ctx.client.get('/v2/parties/{party}', path)).partyDetails?.[0];
    check.that('GET /v2/parties/{party} returns the party', current?.party === ctx.party, `got ${JSON.stringify(current)}`);
    const v0 = current?.localMetadata?.resourceVersion ?? '';

    const body = (resourceVersion, annotations, paths = ['local_metadata.annotations']) => ({
      partyDetails: { party: ctx.party, isLocal: true, identityProviderId: '', localMetadata: { resourceVersion, annotations } },
      updateMask: { paths },
    });

    const first = (await ctx.client.patch('/v2/parties/{party}', body(v0, { [STEP_ANNOTATION]: 'patched' }), path)).partyDetails;
    const v1 = first?.localMetadata?.resourceVersion ?? '';
    check.that('PATCH with the current resourceVersion succeeds', first?.party === ctx.party);
    check.that('PATCH bumps resourceVersion', v1 !== '' && v1 !== v0 && (!/^\d+$/.test(v0) || BigInt(v1) > BigInt(v0)), `${v0} -> ${v1}`);
    check.equal('annotations are merged', first?.localMetadata?.annotations, { [RUN_ANNOTATION]: ctx.run, [STEP_ANNOTATION]: 'patched' });

    const second = (await ctx.client.patch('/v2/parties/{party}', body(v1, { [STEP_ANNOTATION]: '' }), path)).partyDetails;
    check.equal('an empty value deletes the key', second?.localMetadata?.annotations, { [RUN_ANNOTATION]: ctx.run });
    const v2 = second?.localMetadata?.resourceVersion ?? '';

    const stale = await check.rejection('PATCH with a stale resourceVersion', () =>
      ctx.client.patch('/v2/parties/{party}', body(v0, { [STEP_ANNOTATION]: 'stale' }), path));
    if (stale) {
      let decoded = null;
      try {
        decoded = asJsCantonError(stale.err);
      } catch {
        // not a Canton error body; reported below
      }
      check.that('stale resourceVersion answers 409', stale.status === 409, `status ${stale.status}`);
      check.that('the client decodes CONCURRENT_PARTY_DETAILS_UPDATE_DETECTED',
        decoded?.code === 'CONCURRENT_PARTY_DETAILS_UPDATE_DETECTED', `error ${JSON.stringify(stale.err)}`);
      check.that('the error is category 2 (contention), gRPC ABORTED (10)',
        decoded?.errorCategory === 2 && decoded?.grpcCodeValue === 10,
        `errorCategory ${decoded?.errorCategory}, grpcCodeValue ${decoded?.grpcCodeValue}`);
    }
    const after = (await ctx.client.get('/v2/parties/{party}', path)).partyDetails?.[0];
    check.that('the stale PATCH changed nothing',
      after?.localMetadata?.resourceVersion === v2 && JSON.stringify(after?.localMetadata?.annotations) === JSON.stringify({ [RUN_ANNOTATION]: ctx.run }),
      `got ${JSON.stringify(after?.localMetadata)}`);

    const badMask = await check.rejection('PATCH with a camelCase mask path', () =>
      ctx.client.patch('/v2/parties/{party}', body('', { [STEP_ANNOTATION]: 'x' }, ['localMetadata.annotations']), path));
    if (badMask) {
      check.that('a camelCase mask path is 400 INVALID_PARTY_DETAILS_UPDATE_REQUEST',
        badMask.status === 400 && isJsCantonError(badMask.err) && badMask.err.code === 'INVALID_PARTY_DETAILS_UPDATE_REQUEST',
        `status ${badMask.status}, error ${JSON.stringify(badMask.err)}`);
    }
  });

  runner.step('external party onboarding', ['node identity', 'users and rights'], async (ctx, check) => {
    const key = newKey();
    const fp = fingerprint(key.raw);
    const hint = `conformance-ext-${ctx.run}`;
    const topo = await ctx.client.generateTopology(ctx.synchronizerId, key.raw.toString('base64'), hint);
    check.that('generate-topology: publicKeyFingerprint is the key fingerprint', topo.publicKeyFingerprint === fp,
      `got ${topo.publicKeyFingerprint}, computed ${fp}`);
    check.that('generate-topology: partyId is hint::fingerprint', topo.partyId === `${hint}::${fp}`, `got ${topo.partyId}`);

    const txs = (topo.topologyTransactions ?? []).map((t) => Buffer.from(t, 'base64'));
    check.that('generate-topology: at least one topology transaction', txs.length > 0);
    const mh = Buffer.from(topo.multiHash ?? '', 'base64');
    check.that('generate-topology: multiHash is 34 bytes starting 12 20', mh.length === 34 && mh[0] === 0x12 && mh[1] === 0x20,
      `got ${mh.toString('hex')}`);
    check.that('generate-topology: multiHash matches the one computed from the transactions',
      mh.equals(multiHash(txs)), `got ${mh.toString('hex')}, computed ${multiHash(txs).toString('hex')}`);

    // Decode with Canton's own protobuf bindings (core-ledger-proto).
    const mappings = txs.map((t) => {
      const { data, version } = unwrapVersioned(t);
      return { version, tx: TopologyTransaction.fromBinary(data) };
    });
    check.that('topology transactions carry proto version 30', mappings.every((m) => m.version === 30),
      `versions ${mappings.map((m) => m.version)}`);
    const p2p = mappings.map((m) => m.tx.mapping?.mapping).find((m) => m?.oneofKind === 'partyToParticipant')?.partyToParticipant;
    check.that('a PartyToParticipant mapping names the party', p2p?.party === topo.partyId, `got ${JSON.stringify(p2p?.party)}`);
    check.that('the node hosts it with Confirmation',
      p2p?.participants?.[0]?.participantUid === ctx.participantId &&
      p2p?.participants?.[0]?.permission === Enums_ParticipantPermission.CONFIRMATION,
      `got ${JSON.stringify(p2p?.participants)}`);

    // Signatures by another key must not onboard the party: neither one
    // that names the other key nor one that claims to be by the party's key.
    const other = newKey();
    const onboarding = txs.map((t) => ({ transaction: t.toString('base64'), signatures: [] }));
    const badSignatures = [
      ['a signature by a key not in the transactions', fingerprint(other.raw)],
      ["another key's signature claiming the party's key", fp],
    ];
    for (const [what, signedBy] of badSignatures) {
      const bad = await check.rejection(`allocate with ${what}`, () =>
        ctx.client.allocateExternalParty(ctx.synchronizerId, onboarding, [{
          format: 'SIGNATURE_FORMAT_CONCAT',
          signature: signEd25519(other.privateKey, mh).toString('base64'),
          signedBy,
          signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_ED25519',
        }]));
      if (bad) {
        check.that(`${what} is a 400 Canton error`, bad.status === 400 && isJsCantonError(bad.err),
          `status ${bad.status}, error ${JSON.stringify(bad.err)}`);
      }
    }
    check.that('the party does not exist after the rejected attempts', !(await ctx.client.checkIfPartyExists(topo.partyId)));

    const signature = signEd25519(key.privateKey, mh);
    const allocated = await ctx.client.allocateExternalParty(ctx.synchronizerId,
      onboarding,
      [{
        format: 'SIGNATURE_FORMAT_CONCAT',
        signature: signature.toString('base64'),
        signedBy: fp,
        signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_ED25519',
      }]);
    check.that('allocate returns the party id', allocated.partyId === topo.partyId, `got ${JSON.stringify(allocated.partyId)}`);
    check.that('the external party exists (checkIfPartyExists)', await ctx.client.checkIfPartyExists(topo.partyId));
    const all = await listAllParties(ctx.client);
    check.that('GET /v2/parties lists the external party', all.some((p) => p.party === topo.partyId));

    // The client's own onboarding helper: wait for the party, grant CanActAs.
    await ctx.client.waitForPartyAndGrantUserRights(ctx.userId, topo.partyId, 5, 10);
    const rights = rightKinds((await ctx.client.get('/v2/users/{user-id}/rights', { path: { 'user-id': ctx.userId } })).rights);
    check.that('waitForPartyAndGrantUserRights grants CanActAs on the external party',
      rights.includes(`CanActAs:${topo.partyId}`), `got ${JSON.stringify(rights)}`);
    ctx.external = { party: topo.partyId, fingerprint: fp, privateKey: key.privateKey };
  });
}
