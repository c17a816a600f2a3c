// Part 3 of the conformance script (issue 13): reading the ledger. The
// active contract set (list, pages, websocket), the update stream in both
// transaction shapes (list, pages, by id, by offset) and the events of a
// contract, through the client's typed post over the generated paths.
// Offsets must be JSON numbers; the Go test that runs this script also
// validates every answer against Canton's OpenAPI document.

const TEMPLATE_SUFFIX = ':Conformance:Note';

function eventFormat(party) {
  return {
    filtersByParty: { [party]: { cumulative: [{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: false } } } }] } },
    verbose: true,
  };
}

function transactions(party, shape) {
  return { includeTransactions: { eventFormat: eventFormat(party), transactionShape: shape } };
}

export function registerPart3(runner) {
  runner.step('active contracts (list)', ['submit-and-wait-for-transaction-tree'], async (ctx, check) => {
    const end = (await ctx.client.get('/v2/state/ledger-end')).offset;
    check.that('the ledger end is a number', typeof end === 'number', `got ${JSON.stringify(end)}`);
    let list;
    try {
      list = await ctx.userApi().post('/v2/state/active-contracts',
        { activeAtOffset: end, eventFormat: eventFormat(ctx.party) }, { query: { limit: 200 } });
    } catch (err) {
      check.unlessServed(err);
    }
    const events = (list ?? []).map((el) => el.contractEntry?.JsActiveContract?.createdEvent).filter(Boolean);
    const note = events.find((e) => String(e.templateId).endsWith(TEMPLATE_SUFFIX));
    check.that('the contract created by submit-and-wait is active', Boolean(note), `${events.length} contracts`);
    check.that('created events carry numeric offsets and node ids', events.every((e) => typeof e.offset === 'number' && typeof e.nodeId === 'number'));
    check.that('every contract has the party as a witness', events.every((e) => (e.witnessParties ?? []).includes(ctx.party)));
    ctx.acs = { end, count: events.length, contractId: note?.contractId, createdOffset: note?.offset };
  });

  runner.step('active contracts (pages)', ['active contracts (list)'], async (ctx, check) => {
    const seen = [];
    let pageToken;
    for (let i = 0; i < 1000; i++) {
      const page = await ctx.userApi().post('/v2/state/active-contracts-page',
        { activeAtOffset: ctx.acs.end, eventFormat: eventFormat(ctx.party), maxPageSize: 1, ...(pageToken ? { pageToken } : {}) });
      check.that('each page is at the snapshot offset', page.activeAtOffset === ctx.acs.end, `got ${page.activeAtOffset}`);
      for (const el of page.activeContracts ?? []) seen.push(el.contractEntry?.JsActiveContract?.createdEvent?.contractId);
      if (!page.nextPageToken) break;
      pageToken = page.nextPageToken;
    }
    check.that('the pages hold the same contracts as the list', seen.length === ctx.acs.count && seen.includes(ctx.acs.contractId),
      `${seen.length} paged, ${ctx.acs.count} listed`);
  });

  runner.step('active contracts (websocket)', ['active contracts (list)'], async (ctx, check) => {
    if (typeof globalThis.WebSocket !== 'function') check.skip('this Node has no WebSocket (run it with --experimental-websocket)');
    const url = new URL('/v2/state/active-contracts', ctx.baseUrl);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    const protocols = ['daml.ws.auth', ...(ctx.userToken ? [`jwt.token.${ctx.userToken}`] : [])];
    const frames = await new Promise((resolve, reject) => {
      const got = [];
      const ws = new WebSocket(url, protocols);
      const timer = setTimeout(() => { ws.close(); resolve(got); }, 10000);
      ws.onopen = () => ws.send(JSON.stringify({ activeAtOffset: ctx.acs.end, eventFormat: eventFormat(ctx.party) }));
      ws.onmessage = (m) => got.push(JSON.parse(m.data));
      ws.onclose = () => { clearTimeout(timer); resolve(got); };
      ws.onerror = (e) => { clearTimeout(timer); reject(new Error(`websocket error: ${e.message ?? e.type}`)); };
    });
    const ids = frames.map((f) => f.contractEntry?.JsActiveContract?.createdEvent?.contractId).filter(Boolean);
    check.that('the websocket sends the same contracts and closes', ids.length === ctx.acs.count && ids.includes(ctx.acs.contractId),
      `${ids.length} frames, ${ctx.acs.count} listed: ${JSON.stringify(frames[0] ?? null).slice(0, 200)}`);
  });

  runner.step('updates (both shapes)', ['active contracts (list)'], async (ctx, check) => {
    const shapes = {};
    for (const shape of ['TRANSACTION_SHAPE_ACS_DELTA', 'TRANSACTION_SHAPE_LEDGER_EFFECTS']) {
      let list;
      try {
        list = await ctx.userApi().post('/v2/updates',
          { beginExclusive: 0, endInclusive: ctx.acs.end, updateFormat: transactions(ctx.party, shape) }, { query: { limit: 200 } });
      } catch (err) {
        check.unlessServed(err);
      }
      const txs = (list ?? []).map((el) => el.update?.Transaction?.value).filter(Boolean);
      check.that(`${shape}: offsets are numbers in ascending order`,
        txs.every((t, i) => typeof t.offset === 'number' && (i === 0 || t.offset > txs[i - 1].offset)));
      shapes[shape] = txs;
    }
    const creating = shapes.TRANSACTION_SHAPE_ACS_DELTA.find((t) => t.offset === ctx.acs.createdOffset);
    check.that('the creating transaction is in the ACS delta stream', Boolean(creating));
    const created = creating?.events?.find((e) => e.CreatedEvent)?.CreatedEvent;
    check.that('its CreatedEvent is the active contract', created?.contractId === ctx.acs.contractId);
    const effects = shapes.TRANSACTION_SHAPE_LEDGER_EFFECTS.find((t) => t.offset === ctx.acs.createdOffset);
    check.that('the ledger-effects shape has it too', Boolean(effects?.events?.some((e) => e.CreatedEvent)));
    ctx.update = { id: creating?.updateId, offset: creating?.offset };
  });

  runner.step('update by id and by offset', ['updates (both shapes)'], async (ctx, check) => {
    const format = transactions(ctx.party, 'TRANSACTION_SHAPE_LEDGER_EFFECTS');
    const byId = await ctx.userApi().post('/v2/updates/update-by-id', { updateId: ctx.update.id, updateFormat: format });
    check.that('update-by-id finds the transaction', byId.update?.Transaction?.value?.offset === ctx.update.offset,
      JSON.stringify(byId).slice(0, 200));
    const byOffset = await ctx.userApi().post('/v2/updates/update-by-offset', { offset: ctx.update.offset, updateFormat: format });
    check.that('update-by-offset finds the transaction', byOffset.update?.Transaction?.value?.updateId === ctx.update.id);
  });

  runner.step('updates (pages)', ['updates (both shapes)'], async (ctx, check) => {
    const page = await ctx.userApi().post('/v2/updates/get-updates-page', {
      beginOffsetExclusive: ctx.update.offset - 1, endOffsetInclusive: ctx.update.offset, maxPageSize: 10,
      updateFormat: transactions(ctx.party, 'TRANSACTION_SHAPE_ACS_DELTA'),
    });
    check.that('the page holds the transaction', page.updates?.length === 1 && page.updates[0].update?.Transaction?.value?.updateId === ctx.update.id,
      JSON.stringify(page).slice(0, 200));
    check.that('the page bounds are numbers', typeof page.lowestPageOffsetExclusive === 'number' && typeof page.highestPageOffsetInclusive === 'number');
  });

  runner.step('events by contract id', ['active contracts (list)'], async (ctx, check) => {
    let resp;
    try {
      resp = await ctx.userApi().post('/v2/events/events-by-contract-id', { contractId: ctx.acs.contractId, eventFormat: eventFormat(ctx.party) });
    } catch (err) {
      check.unlessServed(err);
    }
    check.that('the created event is found', resp?.created?.createdEvent?.contractId === ctx.acs.contractId);
    check.that('it is not archived', resp?.archived == null);
    check.that('it names the synchronizer', resp?.created?.synchronizerId === ctx.synchronizerId, `got ${resp?.created?.synchronizerId}`);
  });
}
