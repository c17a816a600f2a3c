// The package steps of the conformance script: upload a DAR as Canton's
// wallet SDK does (POST /v2/packages, application/octet-stream, with
// synchronizerId and vetAllPackages), list the packages and read one back,
// each through the official client's own post and get.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The Ping DAR of the repository's archive tests (Canton's own admin
// workflow); LEDGER_DAR names another.
const here = dirname(fileURLToPath(import.meta.url));
const DAR = process.env.LEDGER_DAR || join(here, '..', '..', '..', 'daml', 'archive', 'testdata', 'canton-builtin-admin-workflow-ping.dar');
const PING_PACKAGE_ID = 'de2cc2f90eb523414ff54e899951dadd8789a4c07e0f71f6d6c9eaf57d412a54';

// octetStream sends a body as raw bytes instead of JSON.
const octetStream = { headers: { 'Content-Type': 'application/octet-stream' }, bodySerializer: (b) => b };

export function registerPackages(runner) {
  runner.step('upload a DAR', ['node identity'], async (ctx, check) => {
    const dar = readFileSync(DAR);
    let resp;
    try {
      resp = await ctx.client.post('/v2/packages', dar, { query: { synchronizerId: ctx.synchronizerId, vetAllPackages: true } }, octetStream);
    } catch (err) {
      check.unlessServed(err);
    }
    check.equal('the upload answers {}', resp, {});
    // A second upload of the same DAR is accepted, through /v2/dars.
    const again = await ctx.client.post('/v2/dars', dar, {}, octetStream);
    check.equal('uploading it again answers {}', again, {});
  });

  runner.step('list packages', ['upload a DAR'], async (ctx, check) => {
    const list = await ctx.client.get('/v2/packages');
    const ids = list.packageIds ?? [];
    check.that('packageIds lists the DAR\'s main package', !process.env.LEDGER_DAR ? ids.includes(PING_PACKAGE_ID) : ids.length > 0,
      `${ids.length} package ids`);
    const status = await ctx.client.get('/v2/packages/{package-id}/status', { path: { 'package-id': ids[0] } });
    check.that('an uploaded package is PACKAGE_STATUS_REGISTERED', status.packageStatus === 'PACKAGE_STATUS_REGISTERED', `got ${status.packageStatus}`);
    const resp = await fetch(new URL(`/v2/packages/${ids[0]}`, ctx.client.baseUrl), {
      headers: ctx.adminToken ? { Authorization: `Bearer ${ctx.adminToken}` } : {},
    });
    const payload = Buffer.from(await resp.arrayBuffer());
    const sha = createHash('sha256').update(payload).digest('hex');
    check.that('GET /v2/packages/{id} sends the payload whose SHA-256 is the id', sha === ids[0], `sha256 ${sha}`);
    check.that('with the Canton-Package-Hash header', resp.headers.get('canton-package-hash') === ids[0], `got ${resp.headers.get('canton-package-hash')}`);
    const vetted = await ctx.client.post('/v2/package-vetting/list', {});
    const all = (vetted.vettedPackages ?? []).flatMap((v) => v.packages ?? []);
    check.that('the uploaded packages are vetted', all.some((p) => p.packageId === ids[0]), `${all.length} vetted packages`);
  });
}
