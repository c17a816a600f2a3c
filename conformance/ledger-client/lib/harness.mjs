// The step runner of the conformance script: named steps that may depend on
// earlier ones, one printed line per check, and a record of the HTTP exchanges
// the client makes so that a failure can show what was sent and answered.

// SkipStep ends a step without failing it; its message is printed.
export class SkipStep extends Error {}

// Exchanges records every request the client sends through the global fetch
// (the official client calls fetch itself; wrapping it observes, it does not
// replace any client code).
export class Exchanges {
  // trace, when set, receives each exchange as one JSON line.
  constructor({ trace = null } = {}) {
    this.last = null;
    this.trace = trace;
  }

  install() {
    const original = globalThis.fetch;
    globalThis.fetch = async (input, init) => {
      const request = new Request(input, init);
      const sent = request.body ? await request.clone().text() : '';
      const response = await original(request);
      const answered = await response.clone().text();
      this.last = {
        method: request.method,
        path: new URL(request.url).pathname + new URL(request.url).search,
        requestContentType: request.headers.get('content-type'),
        requestBody: sent,
        status: response.status,
        responseContentType: response.headers.get('content-type'),
        responseBody: answered,
      };
      if (this.trace) this.trace.write(JSON.stringify(this.last) + '\n');
      return response;
    };
  }

  // describe is one line naming the last exchange, for failure details.
  describe() {
    const x = this.last;
    if (!x) return 'no HTTP exchange';
    const clip = (s) => (s.length > 400 ? s.slice(0, 400) + '…' : s);
    return `${x.method} ${x.path} ${clip(x.requestBody)} -> ${x.status} ${clip(x.responseBody)}`;
  }
}

// Runner runs steps in order and counts checks.
export class Runner {
  constructor({ out = process.stdout, exchanges }) {
    this.out = out;
    this.exchanges = exchanges;
    this.passed = 0;
    this.failed = 0;
    this.skipped = 0;
    this.notes = 0;
    this.steps = [];
    this.outcome = new Map(); // step name -> 'ok' | 'failed' | 'skipped'
  }

  line(s) {
    this.out.write(s + '\n');
  }

  // step registers a step. needs names steps that must have succeeded first.
  step(name, needs, run) {
    this.steps.push({ name, needs, run });
  }

  async runAll(ctx) {
    for (const s of this.steps) {
      const missing = s.needs.filter((n) => this.outcome.get(n) !== 'ok');
      if (missing.length > 0) {
        this.skipped++;
        this.outcome.set(s.name, 'skipped');
        this.line(`SKIP  ${s.name}: needs ${missing.join(', ')}`);
        continue;
      }
      const failedBefore = this.failed;
      const check = new StepChecks(this, s.name);
      try {
        await s.run(ctx, check);
        this.outcome.set(s.name, this.failed > failedBefore ? 'failed' : 'ok');
      } catch (err) {
        if (err instanceof SkipStep) {
          this.skipped++;
          this.outcome.set(s.name, 'skipped');
          this.line(`SKIP  ${s.name}: ${err.message}`);
          continue;
        }
        this.failed++;
        this.outcome.set(s.name, 'failed');
        this.line(`FAIL  ${s.name}: ${describeError(err)}; last exchange: ${this.exchanges.describe()}`);
      }
    }
  }

  summary() {
    const notes = this.notes > 0 ? `, ${this.notes} notes` : '';
    return `${this.passed} passed, ${this.failed} failed, ${this.skipped} skipped${notes}`;
  }
}

// StepChecks is what a step uses to report: each check is one line.
class StepChecks {
  constructor(runner, step) {
    this.runner = runner;
    this.step = step;
  }

  // that passes when cond is true; detail says what was seen otherwise.
  that(what, cond, detail = '') {
    if (cond) {
      this.runner.passed++;
      this.runner.line(`PASS  ${this.step}: ${what}`);
    } else {
      this.runner.failed++;
      const seen = detail ? ` (${detail})` : '';
      this.runner.line(`FAIL  ${this.step}: ${what}${seen}; last exchange: ${this.runner.exchanges.describe()}`);
    }
    return cond;
  }

  // equal compares JSON renderings.
  equal(what, got, want) {
    const g = JSON.stringify(got);
    const w = JSON.stringify(want);
    return this.that(what, g === w, `got ${g}, want ${w}`);
  }

  // note records an observation that is not a failure (a known deviation
  // the client tolerates).
  note(what) {
    this.runner.notes++;
    this.runner.line(`NOTE  ${this.step}: ${what}`);
  }

  // skip ends the step as skipped.
  skip(why) {
    throw new SkipStep(why);
  }

  // rejection runs fn, which must fail, and returns the error the client
  // rejected with together with the HTTP status of the last exchange.
  async rejection(what, fn) {
    try {
      const value = await fn();
      this.that(`${what} is rejected`, false, `succeeded with ${JSON.stringify(value)}`);
      return null;
    } catch (err) {
      return { err, status: this.runner.exchanges.last?.status };
    }
  }

  // unlessServed turns "this endpoint is not on the node yet" into a skip:
  // a 404 whose body is not a Canton error (the router's plain 404).
  unlessServed(err) {
    const last = this.runner.exchanges.last;
    const cantonError = typeof err === 'object' && err !== null && 'code' in err && 'errorCategory' in err;
    if (last && last.status === 404 && !cantonError) {
      throw new SkipStep(`${last.method} ${last.path.split('?')[0]} answers 404: not served by this node yet`);
    }
    throw err;
  }
}

function describeError(err) {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  try {
    return `rejected with ${JSON.stringify(err)}`;
  } catch {
    return `rejected with ${String(err)}`;
  }
}
