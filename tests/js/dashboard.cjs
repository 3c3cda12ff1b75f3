// Drives g16d's dashboard in headless chromium (tests/test_dashboard.sh).
//   node dashboard.cjs ADDR TOKEN KEY WITNESS OUTDIR
// ADDR: http://127.0.0.1:PORT of a g16d with that token, the key registered
// and jobs queued or running; WITNESS: a witness path of KEY for the job this
// script submits. Checks: the page loads without console errors, asks for
// the token and refuses a wrong one, shows the queue counts and job states
// of /v1/status and /v1/jobs, a job submitted meanwhile appears and
// completes, the timeline draws one lane per worker, the job view lists the
// partitions with proofs. Writes OUTDIR/dashboard.png.
'use strict';
const { chromium } = require('playwright-core');
const path = require('path');

const [ADDR, TOKEN, KEY, WITNESS, OUTDIR] = process.argv.slice(2);
const CHROMIUM = process.env.G16_CHROMIUM || '/usr/bin/chromium';
const t0 = Date.now();
const log = (...a) => console.log('[' + ((Date.now() - t0) / 1000).toFixed(1) + 's]', ...a);
function fail(msg) { throw new Error(msg); }
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function api(p, opts = {}) {
  const r = await fetch(ADDR + p, { ...opts, headers: { Authorization: 'Bearer ' + TOKEN, 'Content-Type': 'application/json', ...(opts.headers || {}) } });
  const b = await r.json();
  if (!r.ok) fail(p + ': ' + r.status + ' ' + JSON.stringify(b));
  return b;
}
async function allJobs() {
  const out = [];
  let after = 0;
  for (;;) {
    const r = await api('/v1/jobs?limit=1000&after=' + after);
    out.push(...r.jobs);
    if (r.next_after == null) return out;
    after = r.next_after;
  }
}
// until(what, fn, seconds): retries fn (truthy = done; a string = why not) until done.
async function until(what, fn, seconds) {
  const end = Date.now() + seconds * 1000;
  let why = '';
  for (;;) {
    const r = await fn();
    if (r === true) return;
    why = r;
    if (Date.now() > end) fail(what + ' not reached after ' + seconds + ' s: ' + why);
    await sleep(400);
  }
}

(async () => {
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'] });
  const errors = [];
  let tokenPhase = true; // 401s are expected while the token is asked for
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.on('console', (m) => {
      if (m.type() !== 'error') return;
      if (tokenPhase && /401/.test(m.text())) return;
      errors.push('console: ' + m.text());
    });
    page.on('pageerror', (e) => errors.push('page error: ' + e.message));
    page.on('requestfailed', (r) => errors.push('request failed: ' + r.url() + ' ' + (r.failure() || {}).errorText));

    // ---- the token: asked for, a wrong one refused, then the right one
    await page.goto(ADDR + '/', { waitUntil: 'load' });
    await page.waitForSelector('#login:not([hidden])', { timeout: 10000 });
    if (!(await page.isHidden('#main'))) fail('data shown without a token');
    await page.fill('#token', 'wrong-' + TOKEN);
    await page.click('#login-go');
    await page.waitForFunction(() => /refused/.test(document.getElementById('login-msg').textContent), null, { timeout: 10000 });
    if (!(await page.isHidden('#main'))) fail('data shown with a wrong token');
    log('wrong token refused');
    await page.fill('#token', TOKEN);
    await page.click('#login-go');
    await page.waitForSelector('#main:not([hidden])', { timeout: 10000 });
    await page.waitForSelector('#q-normal', { timeout: 10000 });
    tokenPhase = false;
    const stored = await page.evaluate(() => sessionStorage.getItem('g16d_token'));
    if (stored !== TOKEN) fail('token not kept in sessionStorage');
    log('page open with the token');

    // ---- a job submitted now (behind the others: low priority) appears
    const sub = await api('/v1/jobs', { method: 'POST', body: JSON.stringify({ key: KEY, priority: 'low',
      witnesses: [{ path: WITNESS }, { path: WITNESS }] }) });
    const jid = String(sub.id);
    const row = await page.waitForSelector('tr[data-job="' + jid + '"]', { timeout: 15000 });
    log('job ' + jid + ' appeared (' + (await row.getAttribute('data-state')) + ')');

    // ---- queue counts and job states match the API (retried: jobs move)
    const shown = () => page.evaluate(() => {
      const q = {};
      for (const p of ['critical', 'high', 'normal', 'low']) q[p] = document.getElementById('q-' + p).dataset.partitions;
      const jobs = {};
      for (const tr of document.querySelectorAll('#jobs-active tbody tr, #jobs-recent tbody tr')) jobs[tr.dataset.job] = tr.dataset.state;
      const active = [...document.querySelectorAll('#jobs-active tbody tr')].map((tr) => tr.dataset.job);
      return { q, jobs, active };
    });
    const compare = async () => {
      const [st, js] = await Promise.all([api('/v1/status'), allJobs()]);
      const s = await shown();
      for (const p of Object.keys(s.q)) if (String(st.queues[p]) !== s.q[p]) return 'queue ' + p + ': page ' + s.q[p] + ', API ' + st.queues[p];
      const byId = new Map(js.map((j) => [String(j.id), j]));
      for (const [id, state] of Object.entries(s.jobs)) {
        const j = byId.get(id);
        if (!j) return 'page shows job ' + id + ' unknown to the API';
        if (j.state !== state) return 'job ' + id + ': page ' + state + ', API ' + j.state;
      }
      const act = js.filter((j) => j.state === 'queued' || j.state === 'running').map((j) => String(j.id));
      if (act.sort().join() !== s.active.slice().sort().join()) return 'active jobs: page ' + s.active + ', API ' + act;
      return { st, js, s };
    };
    // While jobs run, the numbers move faster than the page polls: check that
    // what the page shows is what its own last /v1/status and /v1/jobs
    // replies said (caught on the wire); at rest (below), against fresh calls.
    // On a fast machine the first jobs may be done already: top up the work.
    let busy = 0, shot = false;
    for (let round = 0; round < 8 && busy < 2; round++) {
      const open = (await allJobs()).filter((j) => j.state === 'queued' || j.state === 'running');
      if (open.length < 2)
        await api('/v1/jobs', { method: 'POST', body: JSON.stringify({ key: KEY, priority: 'high',
          witnesses: Array(24).fill({ path: WITNESS }) }) });
      const [r1, r2] = await Promise.all([
        page.waitForResponse((r) => new URL(r.url()).pathname === '/v1/status', { timeout: 10000 }),
        page.waitForResponse((r) => new URL(r.url()).pathname === '/v1/jobs' && r.request().method() === 'GET', { timeout: 10000 })]);
      const st = await r1.json(), jl = await r2.json();
      await sleep(300); // rendered right after both replies; the next poll is 2 s later
      const s = await shown();
      for (const p of Object.keys(s.q))
        if (String(st.queues[p]) !== s.q[p]) fail('queue ' + p + ': page ' + s.q[p] + ', its reply ' + st.queues[p]);
      for (const j of jl.jobs) {
        if (s.jobs[String(j.id)] !== undefined && s.jobs[String(j.id)] !== j.state)
          fail('job ' + j.id + ': page ' + s.jobs[String(j.id)] + ', its reply ' + j.state);
        if ((j.state === 'queued' || j.state === 'running') && !s.active.includes(String(j.id)))
          fail('active job ' + j.id + ' not in the queue table');
      }
      busy += s.active.length > 0;
      if (!shot && s.active.length) { // zoom the live timeline in at its right edge (stays live)
        shot = true;
        const b = await page.locator('#timeline').boundingBox();
        await page.mouse.move(b.x + b.width - 2, b.y + b.height / 2);
        await page.mouse.wheel(0, -800);
        await sleep(300);
        await page.screenshot({ path: path.join(OUTDIR, 'dashboard-running.png'), fullPage: true });
      }
    }
    if (busy < 2) fail('jobs were active in ' + busy + ' of the checks, expected 2');
    log('queues and job states match the replies while jobs run');

    // ---- ... and the job submitted at the start completes
    await page.waitForSelector('tr[data-job="' + jid + '"][data-state="done"]', { timeout: 120000 });
    log('job ' + jid + ' done on the page');

    // ---- the job view: partitions with stage timings and proofs
    await page.click('tr[data-job="' + jid + '"]');
    await page.waitForSelector('#job-parts tbody tr[data-partition="1"]', { timeout: 10000 });
    const nproofs = await page.locator('#job-parts details pre.proof').count();
    if (nproofs !== 2) fail('job view: ' + nproofs + ' proofs, expected 2');
    // its queue wait: started_at - submitted_at of the job list (the store's first claim)
    const lj = (await allJobs()).find((j) => String(j.id) === jid);
    if (!lj || typeof lj.started_at !== 'number' || !(lj.submitted_at <= lj.started_at && lj.started_at <= lj.finished_at))
      fail('job ' + jid + ' in /v1/jobs: ' + JSON.stringify(lj));
    const waited = await page.evaluate(() => {
      for (const sp of document.querySelectorAll('#job-summary > span'))
        if (sp.firstChild && sp.firstChild.textContent === 'waited') return sp.querySelector('b').textContent;
      return null;
    });
    if (!waited || !/\d/.test(waited)) fail('job view: queue wait "' + waited + '"');
    log('job ' + jid + ' waited ' + waited + ' in the queue');
    await page.click('#job-close');

    // ---- the timeline: one lane per worker, spans drawn in each that worked
    // (back to the live 2-minute window first: the spans of the last 110 s)
    const tb = await page.locator('#timeline').boundingBox();
    await page.mouse.dblclick(tb.x + tb.width / 2, tb.y + tb.height / 2);
    await until('timeline lanes', async () => {
      const st = await api('/v1/status');
      const tl = await api('/v1/timeline?since=' + (Date.now() / 1000 - 110));
      const d = await page.evaluate(() => ({ ...document.getElementById('timeline').dataset }));
      const nw = st.workers.length;
      const worked = new Set(tl.spans.filter((s) => !s.thread || s.thread.startsWith('worker')).map((s) => s.worker)).size;
      if (Number(d.workerLanes) !== nw) return 'worker lanes ' + d.workerLanes + ', workers ' + nw;
      const labels = d.laneLabels.split(',');
      if (new Set(labels).size !== labels.length || labels.length !== Number(d.lanes)) return 'lane labels ' + d.laneLabels;
      if (Number(d.workerLanesWithSpans) < worked || Number(d.workerLanesWithSpans) > nw)
        return 'worker lanes with spans ' + d.workerLanesWithSpans + ', workers with spans ' + worked;
      if (worked < 1) return 'no spans yet';
      return true;
    }, 15);
    const painted = await page.evaluate(() => {
      const c = document.getElementById('timeline');
      const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 0; i < px.length; i += 4) if (px[i + 3] && (Math.abs(px[i] - px[i + 2]) > 40)) n++; // coloured, not grey
      return n;
    });
    if (painted < 50) fail('the timeline canvas shows no spans (' + painted + ' coloured pixels)');
    log('timeline: one lane per worker');

    // ---- once everything finished: the page settles on the API's numbers
    await until('all jobs finished', async () => {
      const js = await allJobs();
      const open = js.filter((j) => j.state === 'queued' || j.state === 'running');
      return open.length ? open.length + ' jobs still open' : true;
    }, 120);
    await until('page matching the API at rest', async () => {
      const r = await compare();
      return typeof r === 'string' ? r : true;
    }, 10);
    log('idle state matches');
    // the queue-wait chart's headline: the jobs' started_at - submitted_at
    const wn = await page.textContent('#wait-now');
    if (!/\d/.test(wn)) fail('queue wait p50 / p90 / p99: "' + wn + '"');
    log('queue wait p50 / p90 / p99: ' + wn);

    // ---- zoom and pan the timeline (no errors), then the screenshot
    const box = await page.locator('#timeline').boundingBox();
    await page.mouse.move(box.x + box.width * 0.8, box.y + box.height / 2);
    await page.mouse.wheel(0, 300);
    await page.mouse.wheel(0, -600);
    await page.mouse.dblclick(box.x + box.width * 0.8, box.y + box.height / 2);
    await sleep(1200);
    await page.screenshot({ path: path.join(OUTDIR, 'dashboard.png'), fullPage: true });
    if (errors.length) fail('errors in the page:\n  ' + errors.join('\n  '));
    log('no console errors; screenshot ' + path.join(OUTDIR, 'dashboard.png'));
  } finally {
    await browser.close();
  }
})().catch((e) => {
  console.error('FAIL: ' + (e && e.message ? e.message : e));
  process.exit(1);
});
