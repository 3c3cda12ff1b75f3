// g16d dashboard (docs/dashboard.md). Plain JS, no dependencies.
//
// Polling: one tick a second, at most two requests a tick:
//   even ticks: GET /v1/status and GET /v1/jobs?after=CURSOR
//   odd ticks:  GET /v1/timeline?since=T and, while a job view is open,
//               GET /v1/jobs/{id}
// The token (if the daemon has one) is asked once, kept in sessionStorage
// and sent as "Authorization: Bearer"; a 401 asks again.
'use strict';

const PRIOS = ['critical', 'high', 'normal', 'low'];
const STAGE_COLORS = {
  queue: '#c9ced8', synth: '#9b6fd6', synthesis: '#9b6fd6', upload: '#e6a23c', kernels: '#2f7de1',
  device: '#2f7de1', gpu: '#2f7de1', msm: '#2f7de1', ntt: '#17a2b8', finalize: '#2e9d5b', verify: '#d2453b',
};
const TOKEN_KEY = 'g16d_token';
const WINDOW_S = 15 * 60;       // what the charts and the timeline keep
const MAX_FINISHED = 2000;      // finished jobs kept client-side

const S = {
  token: sessionStorage.getItem(TOKEN_KEY),
  status: null,
  jobs: new Map(),      // id -> summary
  cursor: 0,            // every job with id <= cursor is finished and known
  scan: null,           // the next page's after= while a scan goes on
  spans: [],            // timeline spans, by start
  spanKeys: new Set(),
  timeNow: null,        // daemon's clock at the last timeline reply
  clockSkew: 0,         // daemon now - browser now, seconds
  openJob: null, jobDetail: null,
  tick: 0, paused: false, needLogin: false, inflight: false,
  view: { live: true, span: 120, end: null },  // timeline window: [end - span, end]
  drawn: { lanes: 0, lanesWithSpans: 0 },
};
window.g16dash = S; // for the browser test and for debugging from the console

const $ = (id) => document.getElementById(id);
const el = (tag, attrs, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v; else if (k === 'text') e.textContent = v; else e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k);
  return e;
};

// ---------------------------------------------------------------- HTTP
class Unauthorized extends Error {}

async function api(path) {
  const headers = {};
  if (S.token) headers.Authorization = 'Bearer ' + S.token;
  const r = await fetch(path, { headers, cache: 'no-store' });
  if (r.status === 401) throw new Unauthorized('unauthorized');
  const body = await r.json().catch(() => null);
  if (!r.ok) {
    const m = body && body.error ? body.error.code + ': ' + body.error.message : 'HTTP ' + r.status;
    throw new Error(path.split('?')[0] + ': ' + m);
  }
  return body;
}

function askToken(msg) {
  S.needLogin = true;
  $('main').hidden = true;
  $('login').hidden = false;
  $('login-msg').textContent = msg || '';
  setConn('bad', 'token needed');
  $('token').focus();
}

function setConn(cls, text) {
  const c = $('conn');
  c.className = 'conn ' + cls;
  c.textContent = text;
}

// ---------------------------------------------------------------- polling
async function tick() {
  if (S.paused || S.needLogin || S.inflight) return;
  S.inflight = true;
  const even = S.tick++ % 2 === 0;
  try {
    if (even) {
      const [st, jl] = await Promise.all([api('/v1/status'), api('/v1/jobs?limit=500&after=' + (S.scan != null ? S.scan : S.cursor))]);
      S.status = st;
      mergeJobs(jl);
      renderStatus();
      renderJobs();
      renderCharts();
    } else {
      // 30 s of overlap (deduplicated): a span is listed once it has ended,
      // and a daemon that filters on start would skip a long one otherwise
      const since = S.timeNow != null ? S.timeNow - 30 : nowS() - WINDOW_S;
      const reqs = [api('/v1/timeline?since=' + since.toFixed(3))];
      if (S.openJob != null) reqs.push(api('/v1/jobs/' + S.openJob));
      const [tl, jd] = await Promise.all(reqs);
      mergeSpans(tl);
      if (jd && S.openJob === jd.id) { S.jobDetail = jd; renderJobDetail(); }
      renderCharts();
    }
    setConn('ok', 'live');
    $('main').hidden = false;
  } catch (e) {
    if (e instanceof Unauthorized) {
      askToken(S.token ? 'the daemon refused this token' : '');
    } else {
      setConn('bad', 'error');
      $('meta').textContent = String(e.message || e);
    }
  } finally {
    S.inflight = false;
  }
}

function nowS() { return Date.now() / 1000 + S.clockSkew; }

function mergeJobs(jl) {
  for (const j of jl.jobs || []) S.jobs.set(j.id, j);
  const fin = (j) => j.state === 'done' || j.state === 'failed' || j.state === 'cancelled';
  // advance the cursor over the finished prefix, so that a poll asks only for
  // jobs that can still change (and new ones); when a page was full, the
  // next poll goes on from where it ended (S.scan), then starts over.
  const ids = [...S.jobs.keys()].sort((a, b) => a - b);
  let c = S.cursor;
  for (const id of ids) {
    if (id <= c) continue;
    if (!fin(S.jobs.get(id))) break;
    c = id;
  }
  S.cursor = c;
  S.scan = jl.next_after != null ? jl.next_after : null;
  // bound the finished jobs kept
  const finished = ids.filter((id) => fin(S.jobs.get(id)));
  for (let i = 0; i < finished.length - MAX_FINISHED; i++) S.jobs.delete(finished[i]);
}

function spanId(s) { return s.job + '/' + s.partition + '/' + laneKey(s) + '/' + s.stage + '/' + s.start; }

function mergeSpans(tl) {
  if (typeof tl.now === 'number') {
    S.timeNow = tl.now;
    S.clockSkew = tl.now - Date.now() / 1000;
  }
  for (const s of tl.spans || []) {
    const k = spanId(s);
    if (S.spanKeys.has(k)) continue;
    S.spanKeys.add(k);
    S.spans.push(s);
  }
  S.spans.sort((a, b) => a.start - b.start);
  const cut = nowS() - WINDOW_S;
  if (S.spans.length && S.spans[0].end < cut) {
    S.spans = S.spans.filter((s) => s.end >= cut);
    S.spanKeys = new Set(S.spans.map(spanId));
  }
  drawTimeline();
}

// ---------------------------------------------------------------- formatting
function fmtS(s) {
  if (s == null || !isFinite(s)) return '–';
  if (s < 1) return (s * 1000).toFixed(0) + ' ms';
  if (s < 120) return s.toFixed(s < 10 ? 2 : 1) + ' s';
  if (s < 7200) return (s / 60).toFixed(1) + ' min';
  return (s / 3600).toFixed(1) + ' h';
}
function fmtMs(ms) { return ms == null ? '–' : fmtS(ms / 1000); }
function fmtB(b) {
  if (b == null) return '–';
  const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (b >= 1024 && i < u.length - 1) { b /= 1024; i++; }
  return (i ? b.toFixed(1) : b) + ' ' + u[i];
}
function bar(frac, cls) {
  const b = el('span', { class: 'bar ' + (cls || '') });
  b.append(el('i', { style: 'width:' + Math.max(0, Math.min(100, 100 * frac)).toFixed(1) + '%' }));
  return b;
}

// ---------------------------------------------------------------- status
function renderStatus() {
  const st = S.status;
  $('meta').textContent = 'v' + st.version + ' · ' + st.backend + ' · store ' + st.store + ' · up ' + fmtS(st.uptime_s) +
    (st.draining ? ' · draining' : '');
  $('backend').textContent = st.backend;

  // queues per priority: queued partitions (store), jobs queued / running (job list)
  const q = $('queues');
  q.replaceChildren();
  const active = [...S.jobs.values()];
  for (const p of PRIOS) {
    const nq = active.filter((j) => j.priority === p && j.state === 'queued').length;
    const nr = active.filter((j) => j.priority === p && j.state === 'running').length;
    const parts = st.queues ? st.queues[p] : null;
    const box = el('div', { class: 'q ' + p, id: 'q-' + p, 'data-partitions': parts == null ? '' : String(parts) });
    box.append(el('span', { class: 'sub', text: p }), el('span', { class: 'count', text: parts == null ? '?' : String(parts) }),
      el('span', { class: 'sub', text: 'partitions · ' + nq + ' jobs queued · ' + nr + ' running' }));
    q.append(box);
  }

  // devices
  const dv = $('devices');
  dv.replaceChildren();
  const gpu = isGpu();
  for (const d of st.devices || []) {
    const box = el('div', { class: 'dev', 'data-device': String(d.id) });
    box.append(el('b', { text: (gpu ? 'GPU ' + d.id : 'CPU') + (d.failed ? ' (failed)' : '') }),
      bar(d.busy_fraction || 0, 'busy'), document.createTextNode(((d.busy_fraction || 0) * 100).toFixed(0) + '% busy'),
      el('div', { class: 'sub', text: d.workers + ' workers · ' + d.busy + ' busy · ' + d.partitions + ' partitions' }));
    dv.append(box);
  }
  if (!gpu) dv.append(el('p', { class: 'empty', text: 'no GPU backend: the workers prove on the CPU' }));

  // workers: what each does now (the latest span of that worker names the job)
  const wt = $('workers').tBodies[0];
  wt.replaceChildren();
  const up = st.uptime_s > 0 ? st.uptime_s * 1000 : 1;
  for (const w of st.workers || []) {
    let doing = 'idle';
    if (w.job != null) {
      const last = lastSpan(w.id);
      // spans arrive when they end: the worker's latest one names the job it
      // works on if it ended just now; an open one also names the stage
      const t = S.timeNow || nowS();
      doing = last && last.end >= t - 1
        ? 'job ' + last.job + ' · partition ' + last.partition + (last.end >= t ? ' · ' + last.stage : '')
        : 'engine job ' + w.job;
    }
    if (w.retired) doing = 'retired';
    const tr = el('tr', { 'data-worker': String(w.id) });
    const bc = el('td');
    bc.append(bar(w.busy_ms / up, 'busy'), document.createTextNode(fmtMs(w.busy_ms)));
    tr.append(el('td', { text: 'w' + w.id }), el('td', { text: devName(w.device) }),
      el('td', { class: w.job != null ? 'state running' : '', text: doing }), bc);
    wt.append(tr);
  }

  // budgets per tier
  const bd = $('budgets');
  bd.replaceChildren();
  const tier = (name, used, limit, peak, extra) => {
    const box = el('div', { class: 'budget', 'data-tier': name });
    box.append(el('b', { text: name }), bar(limit ? used / limit : 0, limit && used / limit > 0.9 ? 'warn' : ''),
      document.createTextNode(fmtB(used) + (limit ? ' of ' + fmtB(limit) : ' (no limit)')),
      el('div', { class: 'sub', text: 'peak ' + fmtB(peak) + (extra || '') }));
    bd.append(box);
  };
  if (st.budget) tier('host memory', st.budget.used, st.budget.limit, st.budget.peak);
  if (st.device_budget && gpu)
    tier('device memory', st.device_budget.used, st.device_budget.limit, st.device_budget.peak,
      ' · keys ' + fmtB(st.device_budget.keys) + ' · work ' + fmtB(st.device_budget.work));

  // resident keys: the daemon's keys, joined with the engine's by path
  const eng = new Map((st.engine_keys || []).map((k) => [k.path, k]));
  const kt = $('keys').tBodies[0];
  kt.replaceChildren();
  for (const k of st.keys || []) {
    const e = eng.get(k.path) || {};
    const tr = el('tr', { 'data-key': k.id });
    tr.append(el('td', { text: k.id }), el('td', { text: k.curve }), el('td', { text: e.tier || k.resident || k.tier }),
      el('td', { text: fmtB(k.bytes) }), el('td', { text: e.device_bytes ? fmtB(e.device_bytes) : '–' }),
      el('td', { text: String(k.refs != null ? k.refs : e.active || 0) }));
    kt.append(tr);
  }
}

function isGpu() { return !!(S.status && S.status.backend && S.status.backend !== 'cpu'); }
function devName(d) { return d == null || d < 0 || !isGpu() ? 'cpu' : 'gpu ' + d; }

// A span's lane: its thread ("worker0", "synth1", "finalize0"); a span
// without one is a worker's.
function laneKey(s) { return s.thread || 'worker' + s.worker; }

function lastSpan(worker) {
  const k = 'worker' + worker;
  for (let i = S.spans.length - 1; i >= 0; i--) if (laneKey(S.spans[i]) === k) return S.spans[i];
  return null;
}

// ---------------------------------------------------------------- jobs
function jobRow(j, recent) {
  const tr = el('tr', { class: 'click', 'data-job': String(j.id), 'data-state': j.state });
  const pc = el('td');
  pc.append(bar(j.partitions ? j.proved / j.partitions : 0, j.state === 'running' ? 'busy' : ''),
    document.createTextNode(j.proved + '/' + j.partitions + (j.failed ? ' · ' + j.failed + ' failed' : '')));
  const pr = el('td');
  pr.append(el('span', { class: 'prio ' + j.priority, text: j.priority }));
  // queue wait: to the start where the daemon reports one; a queued job's so far
  const waited = j.started_at != null ? j.started_at - j.submitted_at : j.state === 'queued' ? nowS() - j.submitted_at : null;
  const last = recent ? fmtS(j.finished_at - j.submitted_at) : fmtS(nowS() - j.submitted_at);
  tr.append(el('td', { text: '#' + j.id }), el('td', { text: j.key }), pr,
    el('td', { class: 'state ' + j.state, text: j.state }), pc, el('td', { text: fmtS(waited) }), el('td', { text: last }));
  tr.addEventListener('click', () => openJob(j.id));
  return tr;
}

function renderJobs() {
  const all = [...S.jobs.values()];
  const rank = (p) => PRIOS.indexOf(p);
  const active = all.filter((j) => j.state === 'queued' || j.state === 'running')
    .sort((a, b) => (a.state === b.state ? 0 : a.state === 'running' ? -1 : 1) || rank(a.priority) - rank(b.priority) || a.id - b.id);
  const tb = $('jobs-active').tBodies[0];
  tb.replaceChildren(...active.map((j) => jobRow(j, false)));
  $('jobs-active-empty').hidden = active.length > 0;
  const recent = all.filter((j) => j.finished_at != null && j.state !== 'queued' && j.state !== 'running')
    .sort((a, b) => b.finished_at - a.finished_at || b.id - a.id).slice(0, 15);
  $('jobs-recent').tBodies[0].replaceChildren(...recent.map((j) => jobRow(j, true)));
}

function openJob(id) {
  S.openJob = id;
  S.jobDetail = null;
  $('job').hidden = false;
  $('job-title').textContent = 'job #' + id;
  $('job-parts').tBodies[0].replaceChildren();
  $('job-summary').replaceChildren(el('span', { text: 'loading…' }));
  api('/v1/jobs/' + id).then((jd) => { if (S.openJob === id) { S.jobDetail = jd; renderJobDetail(); } })
    .catch((e) => { if (e instanceof Unauthorized) askToken(); });
}

function renderJobDetail() {
  const j = S.jobDetail;
  const sum = $('job-summary');
  const kv = (k, v) => { const s = el('span', { text: k }); s.append(el('b', { text: v })); return s; };
  const info = S.jobs.get(j.id) || {};
  sum.replaceChildren(kv('state', j.state), kv('key', j.key), kv('priority', j.priority),
    kv('partitions', j.progress.done + ' done / ' + j.progress.failed + ' failed / ' + j.progress.total),
    kv('queue position', String(j.queue_position)),
    kv('waited', fmtS(info.started_at != null ? info.started_at - info.submitted_at : null)),
    kv('latency', fmtS(info.finished_at != null ? info.finished_at - info.submitted_at : null)));
  const tb = $('job-parts').tBodies[0];
  tb.replaceChildren();
  for (const p of j.partitions) {
    const s = p.stats || {};
    const pf = el('td');
    if (p.proof) {
      const d = el('details');
      d.append(el('summary', { text: 'proof' }), el('pre', { class: 'proof', text: JSON.stringify({ proof: p.proof, public: p.public }, null, 1) }));
      pf.append(d);
    } else if (p.error) {
      pf.append(el('span', { class: 'state failed', text: p.error.code + ': ' + p.error.message }));
    }
    const tr = el('tr', { 'data-partition': String(p.index) });
    tr.append(el('td', { text: String(p.index) }), el('td', { class: 'state ' + p.state, text: p.state }),
      el('td', { text: String(p.attempts) }), el('td', { text: s.worker != null ? 'w' + s.worker : '–' }),
      el('td', { text: fmtMs(s.queue_ms) }), el('td', { text: fmtMs(s.synth_ms) }), el('td', { text: fmtMs(s.device_ms) }),
      el('td', { text: fmtMs(s.finalize_ms) }), el('td', { text: fmtMs(s.verify_ms) }), pf);
    tb.append(tr);
  }
}

// ---------------------------------------------------------------- canvas helpers
function fitCanvas(c, cssH) {
  const dpr = window.devicePixelRatio || 1;
  const w = c.clientWidth || 600;
  if (cssH) c.style.height = cssH + 'px';
  const h = cssH || c.clientHeight || 110;
  if (c.width !== Math.round(w * dpr) || c.height !== Math.round(h * dpr)) {
    c.width = Math.round(w * dpr);
    c.height = Math.round(h * dpr);
  }
  const g = c.getContext('2d');
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, w, h);
  g.font = '11px system-ui, sans-serif';
  return { g, w, h };
}

// ---------------------------------------------------------------- timeline
const LANE_H = 22, AXIS_H = 18, LABEL_W = 92;

function lanes() {
  // one lane per worker of /v1/status (idle ones included), then any thread
  // only the spans know: synthesis and finalize threads, retired workers
  const m = new Map();
  for (const w of (S.status && S.status.workers) || [])
    m.set('worker' + w.id, { key: 'worker' + w.id, kind: 'worker', idx: w.id, device: w.device });
  for (const s of S.spans) {
    const k = laneKey(s);
    if (m.has(k)) continue;
    const kind = (k.match(/^[a-z_]+/) || ['worker'])[0];
    m.set(k, { key: k, kind, idx: Number(k.slice(kind.length)) || 0, device: s.device });
  }
  const order = { worker: 0, synth: 1, finalize: 2 };
  return [...m.values()].sort((a, b) => (order[a.kind] ?? 3) - (order[b.kind] ?? 3) ||
    (a.kind === 'worker' ? (a.device ?? -1) - (b.device ?? -1) : 0) || a.idx - b.idx);
}

function laneLabel(l) {
  return l.kind === 'worker' ? devName(l.device) + ' · w' + l.idx : l.kind + ' ' + l.idx;
}

function viewRange() {
  const end = S.view.live ? nowS() : S.view.end;
  return [end - S.view.span, end];
}

function drawTimeline() {
  const c = $('timeline');
  const L = lanes();
  const { g, w, h } = fitCanvas(c, AXIS_H + Math.max(1, L.length) * LANE_H + 4);
  const [t0, t1] = viewRange();
  const x = (t) => LABEL_W + ((t - t0) / (t1 - t0)) * (w - LABEL_W);
  // axis
  g.fillStyle = '#6b7385';
  g.strokeStyle = '#eef0f4';
  const step = niceStep((t1 - t0) / 8);
  for (let k = 0; t1 - k * step >= t0; k++) {
    const t = t1 - k * step, xx = x(t);
    g.beginPath(); g.moveTo(xx, AXIS_H - 4); g.lineTo(xx, h); g.stroke();
    const label = k === 0 ? (S.view.live ? 'now' : new Date(t * 1000).toLocaleTimeString()) : '-' + fmtTick(k * step);
    g.fillText(label, Math.min(xx + 2, w - 40), 11);
  }
  let withSpans = 0, workerLanes = 0, workersWithSpans = 0;
  L.forEach((ln, i) => {
    const y = AXIS_H + i * LANE_H;
    g.fillStyle = i % 2 ? '#fafbfc' : '#f3f5f8';
    g.fillRect(LABEL_W, y, w - LABEL_W, LANE_H - 2);
    g.fillStyle = '#1d2330';
    g.fillText(laneLabel(ln), 4, y + 14);
    let any = false;
    for (const s of S.spans) {
      if (laneKey(s) !== ln.key || s.end < t0 || s.start > t1) continue;
      const a = Math.max(LABEL_W, x(s.start)), b = Math.min(w, x(s.end));
      g.fillStyle = STAGE_COLORS[s.stage] || '#888';
      g.fillRect(a, y + 2, Math.max(1, b - a), LANE_H - 6);
      any = true;
    }
    if (any) withSpans++;
    if (ln.kind === 'worker') { workerLanes++; if (any) workersWithSpans++; }
  });
  S.drawn = { lanes: L.length, lanesWithSpans: withSpans, workerLanes, workersWithSpans };
  c.dataset.lanes = String(L.length);
  c.dataset.lanesWithSpans = String(withSpans);
  c.dataset.workerLanes = String(workerLanes);
  c.dataset.workerLanesWithSpans = String(workersWithSpans);
  c.dataset.laneLabels = L.map(laneLabel).join(',');
  renderLegend();
}

function fmtTick(s) {
  if (s < 1) return +(s * 1000).toFixed(1) + 'ms';
  if (s < 120) return +s.toFixed(2) + 's';
  return +(s / 60).toFixed(1) + 'min';
}

function niceStep(s) {
  const c = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800];
  for (const v of c) if (v >= s) return v;
  return 3600;
}

function renderLegend() {
  const lg = $('legend');
  const seen = [...new Set(S.spans.map((s) => s.stage))];
  if (lg.dataset.stages === seen.join(',')) return;
  lg.dataset.stages = seen.join(',');
  lg.replaceChildren(...seen.map((st) => {
    const s = el('span');
    s.append(el('i', { style: 'background:' + (STAGE_COLORS[st] || '#888') }), document.createTextNode(st));
    return s;
  }));
}

function spanAt(px, py) {
  const c = $('timeline');
  const L = lanes();
  const i = Math.floor((py - AXIS_H) / LANE_H);
  if (i < 0 || i >= L.length || px < LABEL_W) return null;
  const [t0, t1] = viewRange();
  const t = t0 + ((px - LABEL_W) / (c.clientWidth - LABEL_W)) * (t1 - t0);
  const slack = (t1 - t0) / c.clientWidth * 2;
  for (const s of S.spans) if (laneKey(s) === L[i].key && s.start - slack <= t && t <= s.end + slack) return s;
  return null;
}

function timelineEvents() {
  const c = $('timeline');
  let drag = null;
  c.addEventListener('wheel', (ev) => {
    ev.preventDefault();
    const [t0, t1] = viewRange();
    const px = ev.offsetX;
    const frac = Math.max(0, Math.min(1, (px - LABEL_W) / (c.clientWidth - LABEL_W)));
    const at = t0 + frac * (t1 - t0);
    const f = Math.exp(ev.deltaY * 0.0015);
    const span = Math.max(0.01, Math.min(WINDOW_S, S.view.span * f));
    let end = at + (1 - frac) * span;
    S.view.span = span;
    if (frac > 0.98 && (S.view.live || end >= nowS())) { S.view.live = true; } else { S.view.live = false; S.view.end = Math.min(end, nowS()); }
    drawTimeline();
  }, { passive: false });
  c.addEventListener('mousedown', (ev) => { drag = { x: ev.clientX, r: viewRange() }; c.style.cursor = 'grabbing'; });
  window.addEventListener('mouseup', () => { drag = null; c.style.cursor = ''; });
  c.addEventListener('mousemove', (ev) => {
    const tip = $('tip');
    if (drag) {
      const dt = ((ev.clientX - drag.x) / (c.clientWidth - LABEL_W)) * (drag.r[1] - drag.r[0]);
      S.view.live = false;
      S.view.end = Math.min(nowS(), drag.r[1] - dt);
      drawTimeline();
      tip.hidden = true;
      return;
    }
    const s = spanAt(ev.offsetX, ev.offsetY);
    if (!s) { tip.hidden = true; return; }
    tip.hidden = false;
    tip.textContent = s.stage + ' ' + fmtS(s.end - s.start) + '\njob ' + s.job + ' · partition ' + s.partition +
      '\n' + laneKey(s) + (s.device == null ? ' (cpu)' : ' · device ' + s.device);
    tip.style.left = Math.min(ev.offsetX + 12, c.clientWidth - 180) + 'px';
    tip.style.top = ev.offsetY + 12 + 'px';
  });
  c.addEventListener('mouseleave', () => { $('tip').hidden = true; });
  c.addEventListener('dblclick', () => { S.view.live = true; S.view.span = 120; drawTimeline(); });
}

// ---------------------------------------------------------------- charts
function pct(sorted, p) {
  if (!sorted.length) return null;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[i];
}

function minuteBuckets() {
  const now = nowS();
  const n = 15;
  const start = Math.floor(now / 60) * 60 - (n - 1) * 60;
  return { start, n, idx: (t) => Math.floor((t - start) / 60) };
}

function renderCharts() {
  const B = minuteBuckets();
  // proofs per minute: a partition counts at the end of its last span
  const ends = new Map();
  for (const s of S.spans) {
    const k = s.job + '/' + s.partition;
    if (!ends.has(k) || ends.get(k) < s.end) ends.set(k, s.end);
  }
  const tput = new Array(B.n).fill(0);
  for (const [k, t] of ends) {
    const i = B.idx(t);
    const j = S.jobs.get(Number(k.split('/')[0]));
    if (i >= 0 && i < B.n && !(j && j.state === 'failed' && j.proved === 0)) tput[i]++;
  }
  // queue wait and job latency per minute of finish / start
  const waits = Array.from({ length: B.n }, () => []), lats = Array.from({ length: B.n }, () => []);
  const allW = [], allL = [];
  for (const j of S.jobs.values()) {
    if (j.started_at != null) {
      const i = B.idx(j.started_at);
      if (i >= 0 && i < B.n) { waits[i].push(j.started_at - j.submitted_at); allW.push(j.started_at - j.submitted_at); }
    }
    if (j.finished_at != null && j.state === 'done') {
      const i = B.idx(j.finished_at);
      if (i >= 0 && i < B.n) { lats[i].push(j.finished_at - j.submitted_at); allL.push(j.finished_at - j.submitted_at); }
    }
  }
  const P = (arrs) => [0.5, 0.9, 0.99].map((p) => arrs.map((a) => pct(a.slice().sort((x, y) => x - y), p)));
  drawBars($('c-tput'), tput);
  drawLines($('c-wait'), P(waits));
  drawLines($('c-lat'), P(lats));
  const sum = (a) => a.reduce((x, y) => x + y, 0);
  $('tput-now').textContent = (sum(tput.slice(-5)) / 5).toFixed(1) + ' (5 min avg)';
  const q = (a) => { const s = a.slice().sort((x, y) => x - y); return s.length ? fmtS(pct(s, 0.5)) + ' / ' + fmtS(pct(s, 0.9)) + ' / ' + fmtS(pct(s, 0.99)) : '–'; };
  $('wait-now').textContent = q(allW);
  $('lat-now').textContent = q(allL);
}

function drawBars(c, vals) {
  const { g, w, h } = fitCanvas(c);
  const max = Math.max(1, ...vals);
  const bw = (w - 30) / vals.length;
  g.fillStyle = '#6b7385';
  g.fillText(String(max), 0, 10);
  g.fillText('0', 0, h - 2);
  g.fillStyle = '#2e9d5b';
  vals.forEach((v, i) => {
    const bh = ((h - 14) * v) / max;
    g.fillRect(30 + i * bw + 1, h - 2 - bh, Math.max(1, bw - 2), bh);
  });
}

function drawLines(c, series) {
  const { g, w, h } = fitCanvas(c);
  const flat = series.flat().filter((v) => v != null);
  const max = Math.max(0.001, ...flat);
  g.fillStyle = '#6b7385';
  g.fillText(fmtS(max), 0, 10);
  g.fillText('0', 0, h - 2);
  const colors = ['#2e9d5b', '#e6a23c', '#d2453b'];
  const n = series[0].length;
  series.forEach((vals, k) => {
    g.strokeStyle = colors[k];
    g.fillStyle = colors[k];
    g.lineWidth = 1.5;
    g.beginPath();
    let pen = false;
    vals.forEach((v, i) => {
      const xx = 44 + (i / (n - 1)) * (w - 50), yy = h - 2 - ((h - 14) * (v || 0)) / max;
      if (v == null) { pen = false; return; }
      if (pen) g.lineTo(xx, yy); else g.moveTo(xx, yy);
      pen = true;
      g.fillRect(xx - 1.5, yy - 1.5, 3, 3);
    });
    g.stroke();
  });
}

// ---------------------------------------------------------------- start
function start() {
  $('login').addEventListener('submit', (ev) => {
    ev.preventDefault();
    S.token = $('token').value.trim();
    sessionStorage.setItem(TOKEN_KEY, S.token);
    $('token').value = '';
    $('login-msg').textContent = 'checking…';
    S.needLogin = false;
    $('login').hidden = true;
    S.tick = 0;
    tick();
  });
  $('forget').addEventListener('click', () => { sessionStorage.removeItem(TOKEN_KEY); S.token = null; askToken(''); });
  $('pause').addEventListener('click', () => { S.paused = !S.paused; $('pause').textContent = S.paused ? 'resume' : 'pause'; setConn(S.paused ? '' : 'ok', S.paused ? 'paused' : 'live'); });
  $('job-close').addEventListener('click', () => { S.openJob = null; S.jobDetail = null; $('job').hidden = true; });
  timelineEvents();
  window.addEventListener('resize', () => { if (S.status) { drawTimeline(); renderCharts(); } });
  tick();
  setInterval(tick, 1000);
  // the live timeline scrolls between timeline replies
  setInterval(() => { if (S.view.live && !S.needLogin && !S.paused && S.status) drawTimeline(); }, 250);
}

start();
