// @ts-nocheck
/*
 * a2a-bench view: the browser side. Plain script, no library, no network
 * beyond the viewer's own /api and /raw routes (or, in an exported page, the
 * JSON inlined in #a2a-view-data).
 *
 * Rule of this file: data from the run files (ids, answers, reasons, outputs:
 * all of it possibly written by an adversarial participant) only ever enters
 * the page as text — text nodes, textContent, or attribute values we build
 * with encodeURIComponent. There is no innerHTML here.
 *
 * Routes (the hash, so any view can be shared and reopened):
 *   #/?bench=&status=&q=&sort=&desc=     the runs
 *   #/leaderboard?bench=&mode=&q=&sort=&desc=&run=   across runs, by participant and benchmark
 *   #/run/<key>?unit=&status=&mode=&q=&sort=&desc=&page=
 *   #/item/<key>/<id>?at=<row>&sample=<i>   (at: only for an id several rows carry)
 *   #/compare/<key a>/<key b>?show=
 */
"use strict";
(() => {
  const PAGE_SIZE = 100;
  const SVG_NS = "http://www.w3.org/2000/svg";
  const dataElement = document.getElementById("a2a-view-data");
  const inlined = dataElement ? JSON.parse(dataElement.textContent || "{}") : null;
  const app = document.getElementById("app");

  // ---- data ---------------------------------------------------------------

  /** An API answer: fetched from the viewer, or looked up in the exported page. */
  async function api(route, params) {
    const key = `${route}?${new URLSearchParams(params).toString()}`;
    if (inlined) {
      const answer = inlined[key];
      if (!answer) throw new Error("this exported page does not hold that view");
      if (answer.status !== 200) throw new Error(answer.body.error || `status ${answer.status}`);
      return answer.body;
    }
    const res = await fetch(key, { headers: { accept: "application/json" } });
    const body = await res.json().catch(() => ({ error: res.statusText }));
    if (!res.ok) throw new Error(body.error || `HTTP ${res.status}`);
    return body;
  }

  /** The last run table fetched (paging, sorting and filtering do not fetch again). */
  let tableCache = null;

  // ---- DOM helpers (text only) -------------------------------------------

  function append(el, children) {
    for (const c of children.flat(Infinity)) {
      if (c === null || c === undefined || c === false) continue;
      el.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return el;
  }

  /** An element; string children become text nodes; `on*` attributes become listeners. */
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") el.className = v;
      else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else if (k === "value") el.value = v;
      else el.setAttribute(k, v === true ? "" : String(v));
    }
    return append(el, children);
  }

  function svg(tag, attrs, ...children) {
    const el = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, String(v));
    return append(el, children);
  }

  // ---- routes --------------------------------------------------------------

  const enc = encodeURIComponent;
  const hrefRuns = () => "#/";
  const hrefBoard = (query) => `#/leaderboard${query ? `?${new URLSearchParams(query)}` : ""}`;
  const hrefRun = (key, query) => `#/run/${enc(key)}${query ? `?${new URLSearchParams(query)}` : ""}`;
  const hrefItem = (key, id, sample, at) => {
    const q = new URLSearchParams();
    if (typeof at === "number") q.set("at", String(at));
    if (typeof sample === "number") q.set("sample", String(sample));
    return `#/item/${enc(key)}/${enc(id)}${q.toString() ? `?${q}` : ""}`;
  };
  const hrefCompare = (a, b) => `#/compare/${enc(a)}/${enc(b)}`;
  const hrefRaw = (key, path) =>
    `/raw?${new URLSearchParams([
      ["run", key],
      ["path", path],
    ])}`;

  function parseHash() {
    const hash = location.hash.replace(/^#/, "") || "/";
    const q = hash.indexOf("?");
    const path = q === -1 ? hash : hash.slice(0, q);
    const query = new URLSearchParams(q === -1 ? "" : hash.slice(q + 1));
    const parts = path.split("/").filter((p) => p !== "");
    let decoded;
    try {
      decoded = parts.map((p) => decodeURIComponent(p));
    } catch {
      decoded = [];
    }
    return { parts: decoded, query };
  }

  /** Replace the hash's query without a new history entry or a re-render. */
  function setQuery(query) {
    const base = location.hash.split("?")[0];
    const s = new URLSearchParams(Object.entries(query).filter(([, v]) => v !== "" && v !== null && v !== undefined));
    history.replaceState(null, "", `${base}${s.toString() ? `?${s}` : ""}`);
  }

  // ---- formatting ----------------------------------------------------------

  function fmtDate(unix) {
    if (typeof unix !== "number") return "—";
    return `${new Date(unix * 1000).toISOString().replace("T", " ").slice(0, 16)} UTC`;
  }
  const fmtPct = (v) => (typeof v === "number" ? `${(v * 100).toFixed(1)} %` : "—");
  function fmtSeconds(s) {
    if (typeof s !== "number") return "—";
    if (s < 1) return `${Math.round(s * 1000)} ms`;
    if (s < 120) return `${s.toFixed(s < 10 ? 2 : 1)} s`;
    return `${(s / 60).toFixed(1)} min`;
  }
  const fmtInt = (n) => (typeof n === "number" ? n.toLocaleString("en-US") : "—");
  /** A headline value: a share as a percentage, anything else (a reward) as a number. */
  const fmtMetric = (hl, v) =>
    typeof v !== "number" ? "—" : hl.ci || (v >= 0 && v <= 1 && hl.key !== "reward") ? fmtPct(v) : v.toFixed(3);
  /** "95 % CI 40.1–71.2 %", or "" without an interval. */
  const ciText = (hl) =>
    hl && hl.ci ? `95 % CI ${(hl.ci.low * 100).toFixed(1)}–${(hl.ci.high * 100).toFixed(1)} %` : "";
  /** A run's headline score with its interval; a run with status error has none. */
  function scoreText(s) {
    if (s.status === "error") return "no score (status error)";
    const hl = s.headline;
    if (!hl) return "—";
    return `${hl.label} ${fmtMetric(hl, hl.value)}${hl.ci ? ` (${ciText(hl)})` : ""}`;
  }
  const fmtCost = (usd) => (typeof usd === "number" ? `$${usd.toFixed(usd < 1 ? 4 : 2)}` : "—");
  const fmtDataset = (d) => (d ? `${d.path}${d.sha256 ? ` (${d.sha256.slice(0, 8)})` : ""}` : "—");
  const clip = (text, max) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

  function statusClass(status, passed) {
    if (passed === true || status === "passed" || status === "ok" || status === "RESOLVED_FULL") return "good";
    if (status === "running") return "live";
    if (status === "timeout" || status === "incomplete") return "warn";
    if (typeof status === "string" && status.startsWith("infrastructure")) return "bad-infra";
    return "bad";
  }
  const badge = (text, passed) => h("span", { class: `badge ${statusClass(text, passed)}` }, text ?? "—");

  function breadcrumb(...links) {
    const nav = h("nav", { class: "crumbs" }, h("a", { href: hrefRuns() }, "Runs"));
    for (const l of links) append(nav, [" › ", l]);
    if (!location.hash.startsWith("#/leaderboard"))
      append(nav, [h("a", { href: hrefBoard(), class: "nav-board" }, "Leaderboard")]);
    return nav;
  }

  function errorBox(message) {
    return h("div", { class: "error-box", role: "alert" }, h("strong", {}, "Cannot show this view: "), message);
  }

  /** A block of participant or program text, shown literally; `note` marks a cut. */
  function textBlock(text, note) {
    const pre = h("pre", { class: "text" });
    pre.textContent = typeof text === "string" ? text : JSON.stringify(text, null, 2);
    if (pre.textContent === "") append(pre, [h("span", { class: "muted" }, "(empty)")]);
    return note ? [pre, h("p", { class: "trunc" }, note)] : pre;
  }

  // ---- charts (inline SVG) -----------------------------------------------

  /** Horizontal bars: [{label, value, text}], value in [0, max]. */
  function barChart(title, rows, max) {
    const rowH = 22;
    // Room for the longest label (at most 24 characters are shown), about 7 px a character at 12 px.
    const labelW = Math.min(24, Math.max(6, ...rows.map((r) => r.label.length))) * 8 + 12;
    const width = 380;
    const barW = width - labelW - 70;
    const height = Math.max(rowH * rows.length + 8, 30);
    const chart = svg("svg", {
      class: "chart",
      viewBox: `0 0 ${width} ${height}`,
      width,
      height,
      role: "img",
      "aria-label": title,
    });
    if (rows.length === 0) append(chart, [svg("text", { x: 4, y: 18, class: "axis" }, "nothing to draw")]);
    rows.forEach((r, i) => {
      const y = 4 + i * rowH;
      const w = max > 0 && typeof r.value === "number" ? Math.max(1, (r.value / max) * barW) : 0;
      const label = r.label.length > 24 ? `${r.label.slice(0, 23)}…` : r.label;
      append(chart, [
        svg("text", { x: labelW - 6, y: y + 14, "text-anchor": "end", class: "label" }, label),
        svg("rect", { x: labelW, y: y + 3, width: w, height: rowH - 8, class: `bar ${r.cls || ""}` }),
        svg("text", { x: labelW + w + 5, y: y + 14, class: "value" }, r.text),
        svg("title", {}, `${r.label}: ${r.text}`),
      ]);
    });
    return h("figure", { class: "chart-box" }, h("figcaption", {}, title), chart);
  }

  /** A histogram of `values` (seconds) in up to 24 bins. */
  function histogram(title, values) {
    const width = 380;
    const height = 150;
    const chart = svg("svg", {
      class: "chart",
      viewBox: `0 0 ${width} ${height}`,
      width,
      height,
      role: "img",
      "aria-label": title,
    });
    const xs = values.filter((v) => typeof v === "number" && Number.isFinite(v));
    if (xs.length === 0) {
      append(chart, [svg("text", { x: 4, y: 18, class: "axis" }, "no times recorded")]);
      return h("figure", { class: "chart-box" }, h("figcaption", {}, title), chart);
    }
    let lo = Infinity;
    let hi = -Infinity;
    for (const v of xs) {
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    const bins = Math.min(24, Math.max(1, Math.ceil(Math.sqrt(xs.length))));
    const span = hi - lo || 1;
    const counts = new Array(bins).fill(0);
    for (const v of xs) counts[Math.min(bins - 1, Math.floor(((v - lo) / span) * bins))]++;
    const top = Math.max(...counts);
    // One bin holding most of many values would flatten the rest to nothing: then the counts are drawn on a log scale.
    const log = xs.length >= 50 && top > xs.length / 2;
    const scale = (c) => (log ? Math.log10(1 + c) / Math.log10(1 + top) : c / top);
    const pad = { l: 14 + 7 * String(top).length, r: 10, t: 8, b: 30 };
    const plotW = width - pad.l - pad.r;
    const plotH = height - pad.t - pad.b;
    const bw = plotW / bins;
    counts.forEach((c, i) => {
      const bh = top > 0 ? scale(c) * plotH : 0;
      const from = lo + (span * i) / bins;
      append(chart, [
        svg(
          "rect",
          { x: pad.l + i * bw + 1, y: pad.t + plotH - bh, width: Math.max(1, bw - 2), height: bh, class: "bar" },
          svg("title", {}, `${fmtSeconds(from)} – ${fmtSeconds(from + span / bins)}: ${c}`),
        ),
      ]);
    });
    append(chart, [
      svg("line", { x1: pad.l, y1: pad.t + plotH, x2: width - pad.r, y2: pad.t + plotH, class: "axis-line" }),
      svg("text", { x: pad.l, y: height - 10, class: "axis" }, fmtSeconds(lo)),
      svg("text", { x: width - pad.r, y: height - 10, "text-anchor": "end", class: "axis" }, fmtSeconds(hi)),
      svg("text", { x: pad.l - 4, y: pad.t + 10, "text-anchor": "end", class: "axis" }, fmtInt(top)),
      svg("text", { x: pad.l - 4, y: pad.t + plotH, "text-anchor": "end", class: "axis" }, "0"),
    ]);
    const caption = `${title} (${fmtInt(xs.length)}; median ${fmtSeconds(median(xs))}${log ? "; counts on a log scale" : ""})`;
    return h("figure", { class: "chart-box" }, h("figcaption", {}, caption), chart);
  }

  function median(xs) {
    const s = [...xs].sort((a, b) => a - b);
    const m = s.length >> 1;
    return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
  }

  // ---- views: the runs ---------------------------------------------------

  /** The header row of a table sorted in the page: each column a button; `state.sort`/`state.desc` say how. */
  function sortHead(columns, state, redraw) {
    return h(
      "tr",
      {},
      columns.map((c) => {
        if (!c.sort) return h("th", {}, c.label);
        const active = state.sort === c.key;
        return h(
          "th",
          { "aria-sort": active ? (state.desc ? "descending" : "ascending") : "none" },
          h(
            "button",
            {
              type: "button",
              class: "sort",
              onclick: () => {
                state.desc = active ? !state.desc : !!c.descFirst;
                state.sort = c.key;
                redraw();
              },
            },
            c.label,
            active ? (state.desc ? " ▼" : " ▲") : "",
          ),
        );
      }),
    );
  }

  /** A <select> of `values` ("" is all) bound to `state[name]`. */
  function filterSelect(label, name, values, state, redraw) {
    return h(
      "label",
      {},
      `${label} `,
      h(
        "select",
        {
          name,
          onchange: (ev) => {
            state[name] = ev.target.value;
            redraw();
          },
        },
        h("option", { value: "" }, "all"),
        values.map((v) => h("option", { value: v, selected: state[name] === v }, v)),
      ),
    );
  }

  /** A search box bound to `state.q`, redrawn as one types (the focus kept). */
  function searchBox(placeholder, state, redraw) {
    let timer = null;
    return h("input", {
      type: "search",
      name: "q",
      placeholder,
      value: state.q,
      oninput: (ev) => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          state.q = ev.target.value;
          redraw();
        }, 150);
      },
    });
  }

  /** Sort `rows` by `value(row, key)`: nulls last whatever the direction. */
  function sortRows(rows, state, value) {
    if (!state.sort) return rows;
    const cmp = compareBy("v");
    const keyed = rows.map((r) => ({ r, v: value(r, state.sort) }));
    keyed.sort((x, y) => {
      if (x.v === null || x.v === undefined) return y.v === null || y.v === undefined ? 0 : 1;
      if (y.v === null || y.v === undefined) return -1;
      return state.desc ? cmp(y, x) : cmp(x, y);
    });
    return keyed.map((k) => k.r);
  }

  const distinct = (xs) => [...new Set(xs.filter((x) => typeof x === "string" && x !== ""))].sort();

  function statusCell(r) {
    return h(
      "td",
      {},
      badge(r.status),
      r.reason
        ? h("div", { class: "small reason-line", title: r.reason }, clip(r.reason, 160))
        : r.error
          ? h(
              "div",
              { class: "small", title: `${r.error.code}: ${r.error.message}` },
              clip(`${r.error.code}: ${r.error.message}`, 160),
            )
          : null,
    );
  }

  const RUN_COLUMNS = [
    { key: "pick", label: "" },
    { key: "key", label: "Run", sort: true },
    { key: "benchmark", label: "Benchmark", sort: true },
    { key: "participant", label: "Participant", sort: true },
    { key: "started", label: "Started", sort: true, descFirst: true },
    { key: "status", label: "Status", sort: true },
    { key: "score", label: "Score", sort: true, descFirst: true },
    { key: "isolation", label: "Isolation", sort: true },
    { key: "items", label: "Items done / selected", sort: true, descFirst: true },
  ];

  function runValue(r, key) {
    switch (key) {
      case "started":
        return r.started_at;
      case "score":
        return r.headline ? r.headline.value : null;
      case "isolation":
        return r.isolation ? r.isolation.level : null;
      case "items":
        return r.items.done;
      default:
        return r[key];
    }
  }

  async function viewRuns(query) {
    const { runs } = await api("/api/runs", []);
    document.title = "Runs — a2a-bench view";
    const state = {
      bench: query.get("bench") || "",
      status: query.get("status") || "",
      q: query.get("q") || "",
      sort: query.get("sort") || "",
      desc: query.get("desc") === "1",
    };
    const picked = new Set();
    const compareButton = h("button", { type: "button", disabled: true }, "Compare the two selected runs");
    compareButton.addEventListener("click", () => {
      const [a, b] = [...picked];
      location.hash = hrefCompare(a, b);
    });
    const onPick = (key) => (ev) => {
      if (ev.target.checked) picked.add(key);
      else picked.delete(key);
      compareButton.disabled = picked.size !== 2;
    };
    const rowOf = (r) =>
      h(
        "tr",
        { "data-run": r.key },
        h(
          "td",
          {},
          h("input", {
            type: "checkbox",
            "aria-label": `select ${r.key} to compare`,
            checked: picked.has(r.key),
            onchange: onPick(r.key),
          }),
        ),
        h("td", {}, h("a", { href: hrefRun(r.key) }, r.key)),
        h("td", {}, r.benchmark ?? "—"),
        h("td", { class: "wrap" }, r.participant ?? "—"),
        h("td", { class: "nowrap" }, fmtDate(r.started_at)),
        statusCell(r),
        h("td", { class: "num" }, scoreText(r)),
        h(
          "td",
          {},
          r.isolation ? r.isolation.level : "—",
          r.isolation && r.isolation.warnings.length
            ? h("span", { class: "warn-text", title: r.isolation.warnings.join("\n") }, " ⚠")
            : null,
        ),
        r.items.counts_from === "events.jsonl" && r.events === null
          ? h("td", { class: "num muted", title: "no events.jsonl: no item was started" }, "—")
          : h(
              "td",
              { class: "num" },
              `${fmtInt(r.items.done)}${r.items.selected !== null ? ` / ${fmtInt(r.items.selected)}` : ""}`,
              h(
                "div",
                { class: "small", title: `counted from ${r.items.counts_from}` },
                `${fmtInt(r.items.passed)} passed${r.items.counts_from === "results.json" ? "" : " (so far, from the events)"}`,
              ),
              r.items.not_run > 0
                ? h(
                    "div",
                    {
                      class: "small warn-text",
                      title: "the time budget ran out: these items were not run (not failures)",
                    },
                    `partial: ${fmtInt(r.items.not_run)} not run`,
                  )
                : null,
            ),
      );
    const tbody = h("tbody", {});
    const thead = h("thead", {});
    const count = h("p", { class: "muted", id: "runs-count" });
    const draw = () => {
      setQuery({ ...state, desc: state.desc ? "1" : "" });
      const needle = state.q.toLowerCase();
      let shown = runs.filter(
        (r) =>
          (!state.bench || r.benchmark === state.bench) &&
          (!state.status || r.status === state.status) &&
          (!needle || `${r.key} ${r.participant ?? ""} ${r.run_id}`.toLowerCase().includes(needle)),
      );
      shown = sortRows(shown, state, runValue);
      thead.replaceChildren(sortHead(RUN_COLUMNS, state, draw));
      tbody.replaceChildren(...shown.map(rowOf));
      count.textContent = `${shown.length} of ${runs.length} run${runs.length === 1 ? "" : "s"}${
        state.sort ? "" : ", newest first"
      }`;
    };
    if (runs.length === 0)
      return [
        h("header", { class: "page-head" }, h("h1", {}, "Runs")),
        h(
          "p",
          { class: "empty" },
          "No runs here yet. A run directory holds results.json, checkpoint.jsonl, run_metadata.json, events.jsonl or evaluation_bundle.json.",
        ),
      ];
    const controls = h(
      "div",
      { class: "controls" },
      filterSelect("Benchmark", "bench", distinct(runs.map((r) => r.benchmark)), state, draw),
      filterSelect("Status", "status", distinct(runs.map((r) => r.status)), state, draw),
      h("label", {}, "Search ", searchBox("run or participant contains…", state, draw)),
    );
    draw();
    return [
      h(
        "header",
        { class: "page-head" },
        h("h1", {}, "Runs"),
        h("a", { href: hrefBoard(), class: "head-link" }, "Leaderboard ›"),
      ),
      count,
      controls,
      h("table", { class: "grid", id: "runs-table" }, thead, tbody),
      runs.length > 1 ? h("p", {}, compareButton) : null,
    ];
  }

  // ---- views: the leaderboard ---------------------------------------------

  /**
   * Runs grouped by participant and benchmark (and interaction mode and
   * dataset: scores over other data or another mode are not comparable).
   * Each group shows its latest run that ended ok — its headline with the
   * 95 % interval — and counts the others; a group with no ok run says why
   * its latest run failed.
   */
  function leaderboardGroups(runs) {
    const groups = new Map();
    for (const r of runs) {
      const id = JSON.stringify([r.participant, r.benchmark, r.interaction, r.dataset ? r.dataset.path : null]);
      if (!groups.has(id))
        groups.set(id, {
          id,
          participant: r.participant,
          benchmark: r.benchmark,
          interaction: r.interaction,
          dataset: r.dataset,
          runs: [],
        });
      groups.get(id).runs.push(r);
    }
    const newest = (a, b) => (b.started_at ?? 0) - (a.started_at ?? 0) || a.key.localeCompare(b.key);
    const list = [...groups.values()].map((g) => {
      g.runs.sort(newest);
      g.best = g.runs.find((r) => r.status === "ok" && r.headline) ?? null;
      g.latest = g.runs[0];
      g.ok = g.runs.filter((r) => r.status === "ok").length;
      g.failed = g.runs.filter((r) => r.status === "error" || r.status === "incomplete").length;
      g.score = g.best && typeof g.best.headline.value === "number" ? g.best.headline.value : null;
      return g;
    });
    // The default order: by benchmark, best headline first within it; the rank is within the benchmark.
    list.sort(
      (a, b) =>
        String(a.benchmark ?? "").localeCompare(String(b.benchmark ?? "")) ||
        (b.score ?? -Infinity) - (a.score ?? -Infinity) ||
        String(a.participant ?? "").localeCompare(String(b.participant ?? "")),
    );
    const ranks = new Map();
    for (const g of list) {
      const n = (ranks.get(g.benchmark) ?? 0) + 1;
      ranks.set(g.benchmark, n);
      g.rank = g.score === null ? null : n;
    }
    return list;
  }

  /** The headline as a bar with its interval drawn as a whisker (0–100 %). */
  function ciBar(hl) {
    const width = 140;
    const height = 14;
    const chart = svg("svg", {
      class: "ci-bar",
      viewBox: `0 0 ${width} ${height}`,
      width,
      height,
      role: "img",
      "aria-label": `${hl.label} ${fmtMetric(hl, hl.value)} ${ciText(hl)}`,
    });
    const x = (v) => Math.max(0, Math.min(1, v)) * width;
    append(chart, [svg("rect", { x: 0, y: 3, width, height: 8, class: "track" })]);
    if (typeof hl.value === "number" && hl.value >= 0 && hl.value <= 1)
      append(chart, [svg("rect", { x: 0, y: 3, width: Math.max(1, x(hl.value)), height: 8, class: "bar good" })]);
    if (hl.ci)
      append(chart, [
        svg("line", { x1: x(hl.ci.low), x2: x(hl.ci.high), y1: 7, y2: 7, class: "whisker" }),
        svg("line", { x1: x(hl.ci.low), x2: x(hl.ci.low), y1: 2, y2: 12, class: "whisker" }),
        svg("line", { x1: x(hl.ci.high), x2: x(hl.ci.high), y1: 2, y2: 12, class: "whisker" }),
      ]);
    return chart;
  }

  const BOARD_COLUMNS = [
    { key: "rank", label: "#", sort: true },
    { key: "participant", label: "Participant", sort: true },
    { key: "benchmark", label: "Benchmark", sort: true },
    { key: "score", label: "Headline (95 % CI)", sort: true, descFirst: true },
    { key: "time", label: "Time", sort: true },
    { key: "cost", label: "Cost", sort: true },
    { key: "interaction", label: "Mode", sort: true },
    { key: "dataset", label: "Dataset", sort: true },
    { key: "runs", label: "Runs", sort: true, descFirst: true },
    { key: "latest", label: "Run shown", sort: true, descFirst: true },
  ];

  function groupValue(g, key) {
    switch (key) {
      case "score":
        return g.score;
      case "time":
        return g.best ? g.best.wall_seconds : null;
      case "cost":
        return g.best ? g.best.cost_usd : null;
      case "dataset":
        return g.dataset ? g.dataset.path : null;
      case "runs":
        return g.runs.length;
      case "latest":
        return (g.best ?? g.latest).started_at;
      default:
        return g[key];
    }
  }

  async function viewLeaderboard(query) {
    const { runs } = await api("/api/runs", []);
    document.title = "Leaderboard — a2a-bench view";
    const groups = leaderboardGroups(runs);
    const state = {
      bench: query.get("bench") || "",
      mode: query.get("mode") || "",
      q: query.get("q") || "",
      sort: query.get("sort") || "",
      desc: query.get("desc") === "1",
      run: query.get("run") || "",
    };
    const thead = h("thead", {});
    const tbody = h("tbody", {});
    const count = h("p", { class: "muted", id: "board-count" });
    const rowOf = (g) => {
      const shown = g.best ?? g.latest;
      const hl = g.best ? g.best.headline : null;
      const others = g.runs.filter((r) => r !== shown);
      return h(
        "tr",
        {
          "data-group": `${g.participant ?? ""} ${g.benchmark ?? ""}`,
          class: g.runs.some((r) => r.key === state.run) ? "group highlight" : "group",
        },
        h("td", { class: "num rank", title: "rank within its benchmark" }, g.rank === null ? "—" : String(g.rank)),
        h("td", { class: "wrap participant" }, g.participant ?? "—"),
        h("td", {}, g.benchmark ?? "—"),
        h(
          "td",
          { class: "score" },
          hl
            ? [
                h("div", { class: "score-line" }, h("strong", {}, `${hl.label} ${fmtMetric(hl, hl.value)}`), ciBar(hl)),
                h("div", { class: "small muted" }, hl.ci ? `${ciText(hl)} · ${hl.ci.method}` : "no interval"),
              ]
            : [
                h("span", { class: "badge bad" }, "no score"),
                h(
                  "div",
                  { class: "small reason-line", title: shown.reason ?? "" },
                  clip(shown.reason ?? shown.status, 160),
                ),
              ],
        ),
        h("td", { class: "num" }, fmtSeconds(shown.wall_seconds)),
        h(
          "td",
          { class: "num" },
          fmtCost(shown.cost_usd),
          typeof shown.tokens_self_reported === "number"
            ? h(
                "div",
                { class: "small muted", title: "tokens the participant reported (its word, not a measurement)" },
                `${fmtInt(shown.tokens_self_reported)} tokens (self-reported)`,
              )
            : null,
        ),
        h("td", {}, shown.interaction ?? "—"),
        h("td", { class: "wrap" }, fmtDataset(g.dataset)),
        h(
          "td",
          { class: "num" },
          `${g.runs.length}`,
          h("div", { class: "small muted" }, `${g.ok} ok${g.failed ? `, ${g.failed} failed` : ""}`),
        ),
        h(
          "td",
          {},
          h("a", { href: hrefRun(shown.key) }, shown.key),
          h("div", { class: "small muted" }, fmtDate(shown.started_at)),
          others.length
            ? h(
                "details",
                { class: "other-runs" },
                h("summary", {}, `${others.length} other run${others.length === 1 ? "" : "s"}`),
                h(
                  "ul",
                  {},
                  others.map((r) =>
                    h("li", {}, h("a", { href: hrefRun(r.key) }, r.key), " ", badge(r.status), ` ${scoreText(r)}`),
                  ),
                ),
              )
            : null,
        ),
      );
    };
    const draw = () => {
      setQuery({ ...state, desc: state.desc ? "1" : "" });
      const needle = state.q.toLowerCase();
      let shown = groups.filter(
        (g) =>
          (!state.bench || g.benchmark === state.bench) &&
          (!state.mode || g.interaction === state.mode) &&
          (!needle || (g.participant ?? "").toLowerCase().includes(needle)),
      );
      shown = sortRows(shown, state, groupValue);
      thead.replaceChildren(sortHead(BOARD_COLUMNS, state, draw));
      // In the default order each benchmark gets a heading row naming its headline metric.
      const drawn = [];
      shown.forEach((g, i) => {
        if (!state.sort && (i === 0 || shown[i - 1].benchmark !== g.benchmark)) {
          const metrics = distinct(
            shown.filter((x) => x.benchmark === g.benchmark && x.best).map((x) => x.best.headline.label),
          );
          drawn.push(
            h(
              "tr",
              { class: "bench-head" },
              h(
                "th",
                { colspan: BOARD_COLUMNS.length, scope: "colgroup" },
                g.benchmark ?? "(unknown benchmark)",
                metrics.length ? h("span", { class: "muted" }, ` · ${metrics.join(", ")}`) : null,
              ),
            ),
          );
        }
        drawn.push(rowOf(g));
      });
      tbody.replaceChildren(...drawn);
      count.textContent = `${shown.length} of ${groups.length} participant × benchmark group${groups.length === 1 ? "" : "s"}, from ${runs.length} run${runs.length === 1 ? "" : "s"}${state.sort ? "" : ", by benchmark, best first"}. Each group shows its latest run that ended ok; headlines of different benchmarks are different metrics.`;
    };
    draw();
    return [
      breadcrumb(h("span", {}, "Leaderboard")),
      h("header", { class: "page-head" }, h("h1", {}, "Leaderboard")),
      count,
      h(
        "div",
        { class: "controls" },
        filterSelect("Benchmark", "bench", distinct(groups.map((g) => g.benchmark)), state, draw),
        filterSelect("Mode", "mode", distinct(groups.map((g) => g.interaction)), state, draw),
        h("label", {}, "Participant ", searchBox("participant contains…", state, draw)),
      ),
      runs.length === 0
        ? h("p", { class: "empty" }, "No runs here yet.")
        : h("table", { class: "grid", id: "board-table" }, thead, tbody),
    ];
  }

  // ---- views: one run -------------------------------------------------------

  function runHeader(s, extra) {
    const facts = [
      ["Benchmark", s.benchmark ?? "—"],
      ["Participant", s.participant ?? "—"],
      ["Started", fmtDate(s.started_at)],
      ["Finished", fmtDate(s.finished_at)],
      ["Status", badge(s.status)],
      ["Score", scoreText(s)],
      ["Mode", s.interaction ?? "—"],
      ["Dataset", fmtDataset(s.dataset)],
      ["Time", fmtSeconds(s.wall_seconds)],
      [
        "Leaderboard",
        h(
          "a",
          { href: hrefBoard({ bench: s.benchmark ?? "", run: s.key }), id: "to-leaderboard" },
          `${s.benchmark ?? "all"} on the leaderboard`,
        ),
      ],
      [
        "Isolation",
        s.isolation ? `${s.isolation.level}${s.isolation.backend ? ` (${s.isolation.backend})` : ""}` : "—",
      ],
      [
        "Items",
        `${fmtInt(s.items.done)} done${s.items.selected !== null ? ` of ${fmtInt(s.items.selected)}` : ""}, ${fmtInt(s.items.passed)} passed (from ${s.items.counts_from})` +
          (s.items.not_run > 0
            ? `; partial: the time budget ran out, ${fmtInt(s.items.not_run)} not run (not failures; resume the run to judge them)`
            : ""),
      ],
    ];
    return h(
      "section",
      { class: "run-head" },
      h(
        "dl",
        { class: "facts" },
        facts.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]),
      ),
      s.error
        ? h("p", { class: "error-box" }, `${s.error.code}: ${s.error.message}`)
        : s.reason
          ? h("p", { class: "error-box" }, s.reason)
          : null,
      s.isolation && s.isolation.warnings.length
        ? h(
            "ul",
            { class: "warn-text" },
            s.isolation.warnings.map((w) => h("li", {}, w)),
          )
        : null,
      s.status === "running"
        ? h("p", { class: "live-note" }, "This run is still being written: reload to see the items finished since.")
        : null,
      s.events && s.events.partial_tail
        ? h("p", { class: "muted small" }, "events.jsonl ends in a line still being written; it is skipped.")
        : null,
      extra,
      fileLinks(s.key, s.files, "Run files"),
    );
  }

  function fileLinks(key, files, title) {
    if (!files || files.length === 0) return null;
    return h(
      "p",
      { class: "files" },
      `${title}: `,
      files.map((f, i) => [
        i ? " · " : "",
        inlined
          ? h("code", { title: "raw files are not part of an exported page" }, f)
          : h("a", { href: hrefRaw(key, f), target: "_blank", rel: "noopener" }, f),
      ]),
    );
  }

  /** The table's rows as plain objects, per unit. */
  function tableRows(table, unit) {
    const S = table.strings;
    const str = (i) => (i >= 0 ? S[i] : null);
    const dup = new Set(table.duplicates || []);
    // An id several rows carry links to its own row (by position), never to another row with that id.
    const atOf = (itemIndex) => (dup.has(S[table.items[itemIndex][0]]) ? itemIndex : null);
    if (unit === "completions")
      return table.completions.map((c) => ({
        id: S[table.items[c[0]][0]],
        at: atOf(c[0]),
        sample: c[1],
        status: str(c[2]),
        passed: c[3] === 1,
        mode: str(c[4]),
        time: c[5] === null ? null : c[5] / 1000,
        reason: str(c[6]),
      }));
    return table.items.map((t, i) => ({
      id: S[t[0]],
      at: atOf(i),
      sample: null,
      status: str(t[1]),
      passed: t[2] === 1,
      mode: str(t[3]),
      time: t[4],
      reason: str(t[5]),
      n: t[6],
      correct: t[7],
    }));
  }

  /** The three charts, from the aggregate and the rows ({passed, mode, time}) at hand. */
  function chartsOf(aggregate, rows, unit) {
    const agg = aggregate || {};
    const charts = [];
    const pak = agg.pass_at_k;
    if (pak && typeof pak === "object") {
      const bars = Object.entries(pak).map(([k, v]) => ({
        label: k,
        value: v,
        text: v === null ? "n/a" : fmtPct(v),
        cls: "good",
      }));
      const figure = barChart("pass@k", bars, 1);
      const notes = Array.isArray(agg.pass_at_k_notes) ? agg.pass_at_k_notes : [];
      append(
        figure,
        notes.map((n) => h("p", { class: "chart-note" }, String(n))),
      );
      charts.push(figure);
    } else {
      const passed = rows.filter((r) => r.passed).length;
      charts.push(
        barChart(
          "Passed",
          [
            {
              label: "passed",
              value: rows.length ? passed / rows.length : 0,
              text: `${passed} / ${rows.length}`,
              cls: "good",
            },
          ],
          1,
        ),
      );
    }
    let modes = agg.failure_modes;
    if (!modes || typeof modes !== "object") {
      modes = {};
      for (const r of rows) if (r.mode) modes[r.mode] = (modes[r.mode] || 0) + 1;
    }
    const modeBars = Object.entries(modes)
      .filter(([, n]) => typeof n === "number" && n > 0)
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => ({
        label: k,
        value: n,
        text: fmtInt(n),
        cls: k.startsWith("infrastructure") ? "infra" : "bad",
      }));
    charts.push(barChart("Failure modes", modeBars, Math.max(1, ...modeBars.map((b) => b.value))));
    charts.push(
      histogram(
        unit === "completions" ? "Time per completion (sandbox)" : "Time per item",
        rows.map((r) => r.time),
      ),
    );
    return h("div", { class: "charts" }, charts);
  }

  const COLUMNS = [
    { key: "id", label: "Item" },
    { key: "sample", label: "#", units: ["completions"] },
    { key: "status", label: "Status" },
    { key: "mode", label: "Failure mode" },
    { key: "time", label: "Time" },
    { key: "correct", label: "Passed / n", units: ["items"] },
    { key: "reason", label: "Reason" },
  ];

  function compareBy(key) {
    return (a, b) => {
      const x = a[key];
      const y = b[key];
      if (x === y) return 0;
      if (x === null || x === undefined) return 1;
      if (y === null || y === undefined) return -1;
      if (typeof x === "number" && typeof y === "number") return x - y;
      return String(x).localeCompare(String(y), "en", { numeric: true });
    };
  }

  /**
   * The run view paints in two steps: the header and charts from the run's
   * small files (/api/run-head), then the table once the rows are read
   * (/api/run) — a run of 32,800 completions shows at once.
   */
  async function viewRun(key, query) {
    const cached = tableCache && tableCache.key === key ? tableCache.answer : null;
    const table = cached ? null : api("/api/run", [["run", key]]);
    table?.catch(() => {}); // reported where it is awaited
    const head = cached ? null : await api("/api/run-head", [["run", key]]);
    const summary = cached ? cached.summary : head.summary;
    document.title = `${summary.run_id} — a2a-bench view`;
    const state = {
      unit: query.get("unit") === "completions" ? "completions" : "items",
      status: query.get("status") || "",
      mode: query.get("mode") || "",
      q: query.get("q") || "",
      sort: query.get("sort") || "",
      desc: query.get("desc") === "1",
      page: Math.max(0, Number(query.get("page") || 0) | 0),
    };
    const body = h("div", { id: "run-body" });
    const source = h("p", { class: "muted small" }, "Reading the rows…");
    const reload = inlined
      ? null
      : h(
          "button",
          {
            type: "button",
            onclick: () => {
              tableCache = null;
              void render();
            },
          },
          "Reload",
        );
    const fill = (answer) => {
      tableCache = { key, answer };
      if (!answer.table.completions.length) state.unit = "items";
      source.textContent = `Rows read from ${answer.table.source}.`;
      const renderBody = () => {
        setQuery({ ...state, desc: state.desc ? "1" : "", page: state.page || "" });
        body.replaceChildren(...runBody(summary, answer.table, state, renderBody).filter(Boolean));
      };
      renderBody();
      document.body.dataset.table = key;
    };
    delete document.body.dataset.table;
    if (cached) fill(cached);
    else {
      const times = head.item_times.map((t) => ({ time: t }));
      const n = summary.items.selected ?? summary.items.done;
      body.replaceChildren(
        chartsOf(head.aggregate, times, "items"),
        h("p", { class: "loading" }, `Loading the table of ${fmtInt(n)} items…`),
      );
      const seq = renderSeq;
      table.then(
        (answer) => (seq === renderSeq ? fill(answer) : (tableCache = { key, answer })),
        (err) => body.replaceChildren(errorBox(err.message)),
      );
    }
    return [
      breadcrumb(h("span", {}, summary.key)),
      h("header", { class: "page-head" }, h("h1", {}, summary.run_id), reload),
      runHeader(summary, source),
      body,
    ];
  }

  /** What is wrong with the run file the rows were read from (shown above its table). */
  function tableWarnings(table) {
    const notes = [];
    if (table.duplicates && table.duplicates.length)
      notes.push(
        `${table.source} holds ${table.duplicates.length} id(s) on more than one row (${clip(table.duplicates.join(", "), 200)}): the file is inconsistent; each row is shown as it is, with its own verdict.`,
      );
    if (table.dropped) notes.push(`${table.source} holds ${table.dropped} row(s) without an item id: not shown.`);
    return notes.length ? h("div", { class: "error-box", role: "alert", id: "table-warnings" }, notes.join(" ")) : null;
  }

  function runBody(summary, table, state, rerender) {
    const all = tableRows(table, state.unit);
    if (all.length === 0)
      return [
        tableWarnings(table),
        chartsOf(table.aggregate, all, state.unit),
        h("p", { class: "empty" }, "No item of this run has finished."),
      ];
    const statuses = [...new Set(all.map((r) => r.status).filter(Boolean))].sort();
    const modes = [...new Set(all.map((r) => r.mode).filter(Boolean))].sort();
    const needle = state.q.toLowerCase();
    let rows = all.filter(
      (r) =>
        (!state.status || r.status === state.status) &&
        (!state.mode || (state.mode === "(none)" ? !r.mode : r.mode === state.mode)) &&
        (!needle || r.id.toLowerCase().includes(needle)),
    );
    if (state.sort) {
      rows = [...rows].sort(compareBy(state.sort));
      if (state.desc) rows.reverse();
    }
    const pages = Math.max(1, Math.ceil(rows.length / PAGE_SIZE));
    state.page = Math.min(state.page, pages - 1);
    const shown = rows.slice(state.page * PAGE_SIZE, (state.page + 1) * PAGE_SIZE);
    const set = (patch) => () => {
      Object.assign(state, patch);
      rerender();
    };
    const select = (label, name, values, extra) =>
      h(
        "label",
        {},
        `${label} `,
        h(
          "select",
          {
            name,
            onchange: (ev) => {
              state[name] = ev.target.value;
              state.page = 0;
              rerender();
            },
          },
          h("option", { value: "" }, "all"),
          [...values, ...(extra || [])].map((v) => h("option", { value: v, selected: state[name] === v }, v)),
        ),
      );
    let timer = null;
    const search = h("input", {
      type: "search",
      name: "q",
      placeholder: "item id contains…",
      value: state.q,
      oninput: (ev) => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          state.q = ev.target.value;
          state.page = 0;
          rerender();
          const again = document.querySelector('input[name="q"]');
          if (again) {
            again.focus();
            again.setSelectionRange(again.value.length, again.value.length);
          }
        }, 150);
      },
    });
    const controls = h(
      "div",
      { class: "controls" },
      table.completions.length > 0
        ? h(
            "label",
            {},
            "Show ",
            h(
              "select",
              {
                name: "unit",
                onchange: (ev) => {
                  state.unit = ev.target.value;
                  state.page = 0;
                  state.status = "";
                  state.mode = "";
                  rerender();
                },
              },
              h(
                "option",
                { value: "items", selected: state.unit === "items" },
                `items (${fmtInt(table.items.length)})`,
              ),
              h(
                "option",
                { value: "completions", selected: state.unit === "completions" },
                `completions (${fmtInt(table.completions.length)})`,
              ),
            ),
          )
        : null,
      select("Status", "status", statuses),
      select("Failure mode", "mode", modes, ["(none)"]),
      h("label", {}, "Search ", search),
    );
    const columns = COLUMNS.filter((c) => !c.units || c.units.includes(state.unit));
    const head = h(
      "tr",
      {},
      columns.map((c) => {
        const active = state.sort === c.key;
        return h(
          "th",
          { "aria-sort": active ? (state.desc ? "descending" : "ascending") : "none" },
          h(
            "button",
            {
              type: "button",
              class: "sort",
              onclick: set({ sort: c.key, desc: active ? !state.desc : false, page: 0 }),
            },
            c.label,
            active ? (state.desc ? " ▼" : " ▲") : "",
          ),
        );
      }),
    );
    const cell = (c, r) => {
      switch (c.key) {
        case "id":
          return h("td", {}, h("a", { href: hrefItem(summary.key, r.id, r.sample, r.at) }, r.id));
        case "sample":
          return h("td", { class: "num" }, String(r.sample));
        case "status":
          return h("td", {}, badge(r.status, r.passed));
        case "mode":
          return h("td", {}, r.mode ?? "");
        case "time":
          return h("td", { class: "num" }, fmtSeconds(r.time));
        case "correct":
          return h("td", { class: "num" }, r.n ? `${r.correct} / ${r.n}` : "");
        default:
          return h("td", { class: "reason" }, r.reason ?? "");
      }
    };
    const pager = () =>
      h(
        "div",
        { class: "pager" },
        h(
          "button",
          { type: "button", disabled: state.page === 0, onclick: set({ page: state.page - 1 }) },
          "‹ Previous",
        ),
        h(
          "span",
          { class: "page-info" },
          rows.length === 0
            ? "no rows match"
            : `${fmtInt(state.page * PAGE_SIZE + 1)}–${fmtInt(state.page * PAGE_SIZE + shown.length)} of ${fmtInt(rows.length)}${rows.length !== all.length ? ` (filtered from ${fmtInt(all.length)})` : ""}`,
        ),
        h(
          "button",
          { type: "button", disabled: state.page >= pages - 1, onclick: set({ page: state.page + 1 }) },
          "Next ›",
        ),
      );
    return [
      tableWarnings(table),
      chartsOf(table.aggregate, all, state.unit),
      controls,
      pager(),
      h(
        "table",
        { class: "grid", id: "items-table" },
        h("thead", {}, head),
        h(
          "tbody",
          {},
          shown.map((r) =>
            h(
              "tr",
              {},
              columns.map((c) => cell(c, r)),
            ),
          ),
        ),
      ),
      pager(),
    ];
  }

  // ---- views: one item ---------------------------------------------------

  /** Row keys shown in their own sections (the rest go to "Other fields"). */
  const SENT_KEYS = ["prompt", "sent", "request", "input", "problem_statement", "question", "instruction"];
  const ANSWER_KEYS = ["completion", "answer", "reply", "reply_tail", "model_patch", "patch", "response"];
  const OUTPUT_KEYS = [
    "test_output",
    "output",
    "output_tail",
    "stdout_tail",
    "stderr_tail",
    "stdout",
    "stderr",
    "log",
    "apply_log",
    "verifier_output",
  ];
  const VERDICT_KEYS = [
    "status",
    "passed",
    "failure_mode",
    "reason",
    "error",
    "exception",
    "exit_code",
    "signal",
    "timed_out",
    "limit_breach",
    "reward",
    "verifier_reward",
    "verifier_timed_out",
    "tampered",
  ];
  const HIDDEN_KEYS = new Set([
    "id",
    "samples",
    "elapsed_seconds",
    "n",
    "num_correct",
    "usage",
    ...SENT_KEYS,
    ...ANSWER_KEYS,
    ...OUTPUT_KEYS,
    ...VERDICT_KEYS,
  ]);

  function kv(o, keys) {
    const present = keys.filter((k) => o[k] !== undefined && o[k] !== null && o[k] !== "");
    if (present.length === 0) return null;
    return h(
      "dl",
      { class: "facts" },
      present.map((k) => [
        h("dt", {}, k),
        h(
          "dd",
          {},
          k === "status" ? badge(o[k], o.passed) : typeof o[k] === "object" ? JSON.stringify(o[k]) : String(o[k]),
        ),
      ]),
    );
  }

  function textSections(o, keys, heading) {
    const present = keys.filter((k) => typeof o[k] === "string" || (o[k] && typeof o[k] === "object"));
    if (present.length === 0) return null;
    return h(
      "section",
      {},
      heading ? h("h3", {}, heading) : null,
      present.map((k) => [h("h4", {}, k), textBlock(o[k])]),
    );
  }

  function usageLine(usage) {
    if (!usage || typeof usage !== "object") return null;
    const parts = Object.entries(usage)
      .filter(([, v]) => typeof v === "number" || typeof v === "string")
      .map(([k, v]) => `${k} ${typeof v === "number" ? fmtInt(v) : v}`);
    return parts.length ? h("p", { class: "usage" }, "Self-reported usage: ", parts.join(" · ")) : null;
  }

  /**
   * HumanEval's program stdout is the channel its checker reads answers on (our own encoding of them):
   * never shown. The candidate's own prints go to stderr, which is.
   */
  let hiddenOutputKeys = new Set();
  const ANSWER_CHANNEL_NOTE =
    "stdout is the channel the harness's checker reads the answers on (its own encoding): not shown. The program's own prints are in stderr_tail.";

  function completionDetails(sample, i, open) {
    const summaryLine = h(
      "summary",
      {},
      `Completion ${i} `,
      badge(sample.status, sample.status === "passed"),
      sample.failure_mode ? ` ${sample.failure_mode}` : "",
      typeof sample.duration_ms === "number" ? ` · ${fmtSeconds(sample.duration_ms / 1000)}` : "",
    );
    const details = h("details", { class: "completion", id: `completion-${i}` }, summaryLine);
    let filled = false;
    const fill = () => {
      if (filled) return;
      filled = true;
      append(details, [
        kv(sample, [...VERDICT_KEYS, "completion_kind", "duration_ms", "agent_seconds", "rounds", "calls", "executed"]),
        usageLine(sample.usage),
        textSections(sample, ANSWER_KEYS, "Answer (as run)"),
        textSections(
          sample,
          OUTPUT_KEYS.filter((k) => !hiddenOutputKeys.has(k)),
          "Test output",
        ),
        Object.keys(sample).some((k) => hiddenOutputKeys.has(k))
          ? h("p", { class: "muted small" }, ANSWER_CHANNEL_NOTE)
          : null,
      ]);
    };
    details.addEventListener("toggle", fill);
    if (open) {
      details.open = true;
      fill();
    }
    return details;
  }

  /** Completions shown at once; more are added on request. */
  const COMPLETIONS_STEP = 50;

  /**
   * The completions of an item: a count per status, then (for many) only the
   * ones that did not pass unless all are asked for, 50 at a time, each
   * drawn only when opened. The one named in the URL is always shown.
   */
  function completionList(samples, openIndex) {
    const counts = {};
    for (const s of samples) counts[s?.status ?? "?"] = (counts[s?.status ?? "?"] || 0) + 1;
    const failing = samples.map((s, i) => i).filter((i) => samples[i]?.status !== "passed");
    const many = samples.length > 20;
    const state = { which: many && failing.length > 0 ? "failing" : "all", shown: COMPLETIONS_STEP };
    const list = h("div", { class: "completions" });
    const draw = () => {
      let indices = state.which === "failing" ? failing : samples.map((_, i) => i);
      if (openIndex >= 0 && openIndex < samples.length && !indices.includes(openIndex))
        indices = [...indices, openIndex].sort((a, b) => a - b);
      const visible = indices.slice(0, state.shown);
      const more = indices.length - visible.length;
      list.replaceChildren(
        ...visible.map((i) => completionDetails(samples[i] || {}, i, i === openIndex)),
        ...(more > 0
          ? [
              h(
                "button",
                { type: "button", onclick: () => ((state.shown += COMPLETIONS_STEP), draw()) },
                `Show ${Math.min(more, COMPLETIONS_STEP)} more (${more} not shown)`,
              ),
            ]
          : []),
      );
    };
    draw();
    const counted = Object.entries(counts)
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `${n} ${k}`)
      .join(", ");
    const chooser = many
      ? h(
          "label",
          {},
          " Show ",
          h(
            "select",
            {
              name: "completions",
              onchange: (ev) => {
                state.which = ev.target.value;
                state.shown = COMPLETIONS_STEP;
                draw();
              },
            },
            h("option", { value: "failing", selected: state.which === "failing" }, `the ${failing.length} not passed`),
            h("option", { value: "all", selected: state.which === "all" }, `all ${samples.length}`),
          ),
        )
      : null;
    return [h("p", { class: "muted" }, `${counted}.`, chooser), list];
  }

  /** What was asked, rebuilt from the run's dataset (item-task.ts): texts and lists. */
  function taskView(task) {
    if (!task) return null;
    return h(
      "div",
      { class: "task" },
      h("p", { class: "muted small" }, `From the ${task.source}.`),
      task.note ? h("p", { class: "muted" }, task.note) : null,
      task.sections.map((sec) => [
        h("h4", {}, sec.title),
        Array.isArray(sec.list) ? testList(sec.list, null) : textBlock(sec.text ?? ""),
      ]),
    );
  }

  /** Test names as a list; `ok` true/false marks each as passed/failed. */
  function testList(names, ok) {
    if (names.length === 0) return h("p", { class: "muted small" }, "(none)");
    return h(
      "ul",
      { class: "tests" },
      names.map((n) =>
        h(
          "li",
          { class: ok === null ? "" : ok ? "test-pass" : "test-fail" },
          ok === null ? "" : ok ? "✓ " : "✗ ",
          h("code", {}, String(n)),
        ),
      ),
    );
  }

  /** SWE-bench's tests_status ({FAIL_TO_PASS: {success, failure}, …}) as lists, failures first. */
  function testsView(status) {
    const groups = Object.entries(status).filter(([, v]) => v && typeof v === "object");
    return h(
      "section",
      { id: "item-tests" },
      h("h2", {}, "Tests after the patch"),
      groups.map(([name, v]) => {
        const failure = Array.isArray(v.failure) ? v.failure : [];
        const success = Array.isArray(v.success) ? v.success : [];
        return h(
          "div",
          { class: "test-group" },
          h("h4", {}, `${name}: ${success.length} passed, ${failure.length} failed`),
          failure.length || success.length
            ? [failure.length ? testList(failure, false) : null, success.length ? testList(success, true) : null]
            : h("p", { class: "muted small" }, "(none)"),
        );
      }),
    );
  }

  /** A unified diff, one line each, added/removed/hunk/file lines coloured. */
  function diffView(key, diff) {
    const pre = h("pre", { class: "diff" });
    const lines = diff.text.split("\n");
    if (lines.length && lines[lines.length - 1] === "") lines.pop();
    for (const line of lines) {
      const cls =
        line.startsWith("+++") || line.startsWith("---") || line.startsWith("diff ") || line.startsWith("index ")
          ? "d-file"
          : line.startsWith("@@")
            ? "d-hunk"
            : line.startsWith("+")
              ? "d-add"
              : line.startsWith("-")
                ? "d-del"
                : "d-ctx";
      pre.append(h("span", { class: cls }, line), "\n");
    }
    if (lines.length === 0) append(pre, [h("span", { class: "muted" }, "(empty diff)")]);
    const added = lines.filter((l) => l.startsWith("+") && !l.startsWith("+++")).length;
    const removed = lines.filter((l) => l.startsWith("-") && !l.startsWith("---")).length;
    return h(
      "section",
      { id: "item-diff" },
      h("h2", {}, `Final diff (+${added} −${removed})`),
      h(
        "p",
        { class: "muted small" },
        diff.path
          ? [
              "From ",
              inlined
                ? h("code", {}, diff.path)
                : h("a", { href: hrefRaw(key, diff.path), target: "_blank", rel: "noopener" }, diff.path),
            ]
          : "From the row.",
        diff.truncated ? " — cut: only its first part is shown." : "",
      ),
      pre,
    );
  }

  async function viewItem(key, id, query) {
    const params = [
      ["run", key],
      ["id", id],
    ];
    if (query.get("at") !== null) params.push(["at", query.get("at")]);
    const { summary, item, task, diff } = await api("/api/item", params);
    const row = item.row;
    hiddenOutputKeys = new Set(summary.benchmark === "humaneval" ? ["stdout_tail", "stdout"] : []);
    document.title = `${id} — ${summary.run_id} — a2a-bench view`;
    const wanted = query.get("sample");
    const samples = Array.isArray(row.samples) ? row.samples : [];
    const firstFailing = samples.findIndex((s) => s && s.status !== "passed");
    const openIndex = wanted !== null ? Number(wanted) : firstFailing === -1 ? 0 : firstFailing;
    const others = Object.fromEntries(
      Object.entries(row).filter(
        ([k]) => !HIDDEN_KEYS.has(k) && !k.startsWith("trajectory") && k !== "tests_status" && !hiddenOutputKeys.has(k),
      ),
    );
    // A terminal attempt (an instruction, an episode, a verifier): the three side by side, read across.
    const panes = typeof row.verifier_output === "string" && item.trajectories.length > 0;
    const sent = panes ? null : textSections(row, SENT_KEYS, null);
    const nav = h(
      "p",
      { class: "item-nav" },
      item.prev !== null
        ? h("a", { href: hrefItem(key, item.prev, null, item.prev_at) }, "‹ previous item")
        : h("span", { class: "muted" }, "‹ previous item"),
      ` · item ${item.index + 1} of ${item.total} · `,
      item.next !== null
        ? h("a", { href: hrefItem(key, item.next, null, item.next_at) }, "next item ›")
        : h("span", { class: "muted" }, "next item ›"),
    );
    const content = [
      breadcrumb(h("a", { href: hrefRun(key) }, summary.key), h("span", {}, id)),
      h("header", { class: "page-head" }, h("h1", {}, id), badge(row.status, row.passed)),
      item.rows_with_id > 1
        ? h(
            "div",
            { class: "error-box", role: "alert", id: "item-duplicate" },
            `${item.rows_with_id} rows of ${item.source} carry this id: the file is inconsistent. This is row ${item.index + 1}, shown as it is.`,
          )
        : null,
      h("p", { class: "muted small" }, `Verdict read from ${item.source}.`),
      nav,
      h(
        "section",
        { class: "verdict" },
        h("h2", {}, "Verdict"),
        kv(row, [...VERDICT_KEYS, "elapsed_seconds", "n", "num_correct"]),
        usageLine(row.usage),
      ),
      h(
        "section",
        { id: "item-task" },
        h("h2", {}, "What was asked"),
        sent,
        taskView(task),
        panes ? h("p", { class: "muted small" }, "The instruction is beside the trajectory below.") : null,
        !sent && !task && !panes
          ? h(
              "p",
              { class: "muted" },
              `This run's files do not record what was asked for this item, and its dataset is not at hand here: it is ${id} of the run's dataset (its path and sha256 are in results.json and run_metadata.json).`,
            )
          : null,
      ),
    ];
    if (row.tests_status && typeof row.tests_status === "object") content.push(testsView(row.tests_status));
    if (diff) content.push(diffView(key, diff));
    if (samples.length > 0) {
      content.push(
        h(
          "section",
          {},
          h("h2", {}, `Answers and test output (${samples.length} completion${samples.length === 1 ? "" : "s"})`),
          completionList(samples, openIndex),
        ),
      );
    } else if (panes) {
      content.push(await terminalPanes(key, row, item.trajectories));
    } else {
      const answer = textSections(row, ANSWER_KEYS, "Answer");
      const output = textSections(row, OUTPUT_KEYS, "Test output");
      // An interactive item's answer is its trajectory (below); say "none" only when there is nothing at all.
      if (answer || output || (item.trajectories.length === 0 && !diff))
        content.push(
          h(
            "section",
            {},
            h("h2", {}, "Answer and test output"),
            answer || h("p", { class: "muted" }, "No answer text in this row."),
            output,
          ),
        );
    }
    if (!panes) for (const t of item.trajectories) content.push(await trajectorySection(key, t));
    if (item.links_not_followed)
      content.push(
        h(
          "p",
          { class: "muted small", id: "links-not-followed" },
          `This row names ${item.links_not_followed} more file path(s) (trajectories, artifacts): not followed.`,
        ),
      );
    if (Object.keys(others).length)
      content.push(h("section", {}, h("h2", {}, "Other fields"), textBlock(JSON.stringify(others, null, 2))));
    content.push(fileLinks(key, item.files, "Item files"), fileLinks(key, summary.files, "Run files"));
    return content;
  }

  /** The instruction, the trajectory and the verifier's verdict and output, side by side (a terminal attempt). */
  async function terminalPanes(key, row, trajectories) {
    const sections = [];
    for (const t of trajectories) sections.push(await trajectorySection(key, t));
    return h(
      "section",
      { id: "item-panes", class: "panes" },
      h("div", { class: "pane", id: "pane-instruction" }, h("h2", {}, "Instruction"), textBlock(row.instruction ?? "")),
      h("div", { class: "pane", id: "pane-trajectory" }, ...sections),
      h(
        "div",
        { class: "pane", id: "pane-verifier" },
        h("h2", {}, "Verifier"),
        kv(row, [
          "reward",
          "verifier_reward",
          "reward_file",
          "verifier_exit_code",
          "verifier_timed_out",
          "verifier_seconds",
          "tampered",
          "network",
          "engine",
        ]),
        h("h3", {}, "Its output"),
        textBlock(row.verifier_output),
      ),
    );
  }

  // ---- trajectory ----------------------------------------------------------

  function pick(o, keys) {
    for (const k of keys) if (o[k] !== undefined && o[k] !== null) return o[k];
    return undefined;
  }

  function truncationNote(turn) {
    const elided = turn.elided_chars_sent;
    if (typeof elided === "number")
      return `Shown in full as recorded; the participant was sent it cut to head and tail, ${fmtInt(elided)} characters elided.`;
    const flag = pick(turn, ["output_truncated", "truncated"]);
    const total = pick(turn, ["output_bytes", "output_total_bytes", "total_bytes"]);
    const shownBytes = pick(turn, ["output_shown_bytes", "shown_bytes"]);
    if (!flag && typeof total !== "number") return null;
    if (!flag) return null;
    const sizes =
      typeof total === "number"
        ? ` (${typeof shownBytes === "number" ? `${fmtInt(shownBytes)} of ` : ""}${fmtInt(total)} bytes)`
        : "";
    return `Output truncated${sizes}: only part of it was kept.`;
  }

  function turnView(turn, i) {
    if (!turn || typeof turn !== "object") return h("li", { class: "turn" }, textBlock(JSON.stringify(turn)));
    const n = pick(turn, ["turn", "index", "step"]) ?? i + 1;
    const command = pick(turn, ["command", "cmd", "action"]);
    const exit = pick(turn, ["exit_code", "exitCode", "status"]);
    const output = pick(turn, ["output", "stdout"]);
    const stderr = turn.stderr;
    const duration = pick(turn, ["duration_ms", "elapsed_ms"]);
    const started = pick(turn, ["started_at", "ts", "time"]);
    const message = pick(turn, ["message", "thought", "text"]);
    const known = new Set([
      "turn",
      "index",
      "step",
      "command",
      "cmd",
      "action",
      "exit_code",
      "exitCode",
      "status",
      "output",
      "stdout",
      "stderr",
      "output_truncated",
      "elided_chars_sent",
      "truncated",
      "output_bytes",
      "output_total_bytes",
      "total_bytes",
      "output_shown_bytes",
      "shown_bytes",
      "duration_ms",
      "elapsed_ms",
      "started_at",
      "ts",
      "time",
      "usage",
      "message",
      "thought",
      "text",
      "task_message",
      "reply_raw",
    ]);
    const rest = Object.fromEntries(Object.entries(turn).filter(([k]) => !known.has(k)));
    const timing = [
      typeof duration === "number" ? `took ${fmtSeconds(duration / 1000)}` : null,
      started !== undefined ? `started ${typeof started === "number" ? fmtDate(started) : String(started)}` : null,
    ].filter(Boolean);
    return h(
      "li",
      { class: "turn" },
      h(
        "div",
        { class: "turn-head" },
        h("strong", {}, `Turn ${n}`),
        exit !== undefined ? [" · exit ", badge(String(exit), exit === 0)] : null,
        timing.length ? ` · ${timing.join(" · ")}` : null,
      ),
      typeof turn.task_message === "string" ? [h("h4", {}, "Task sent"), textBlock(turn.task_message)] : null,
      message !== undefined ? [h("h4", {}, "Message"), textBlock(message)] : null,
      command !== undefined ? [h("h4", {}, "Command"), textBlock(command)] : null,
      output !== undefined ? [h("h4", {}, "Output"), textBlock(output, truncationNote(turn))] : null,
      stderr !== undefined ? [h("h4", {}, "Stderr"), textBlock(stderr)] : null,
      usageLine(turn.usage),
      typeof turn.reply_raw === "string"
        ? h("details", { class: "raw-reply" }, h("summary", {}, "Raw reply"), textBlock(turn.reply_raw))
        : null,
      Object.keys(rest).length ? [h("h4", {}, "Other fields"), textBlock(JSON.stringify(rest, null, 2))] : null,
    );
  }

  /** "3 turns": the participant turns drawn (the closing entry is none); how many went unanswered, if any. */
  function turnCount(turns) {
    const real = turns.filter((t) => !(t && typeof t === "object" && t.turn === "end"));
    const unanswered = real.filter(
      (t) => t && typeof t === "object" && t.message === "no reply from the participant",
    ).length;
    return `${real.length} turn${real.length === 1 ? "" : "s"}${unanswered ? `, ${unanswered} unanswered` : ""}`;
  }

  async function trajectorySection(key, t) {
    const title = `Trajectory${t.sample !== null ? ` of completion ${t.sample}` : ""}`;
    try {
      const tr = await api("/api/trajectory", [
        ["run", key],
        ["path", t.path],
      ]);
      return h(
        "section",
        { class: "trajectory" },
        h("h2", {}, `${title} (${turnCount(tr.turns)})`),
        h(
          "p",
          { class: "muted small" },
          "From ",
          inlined
            ? h("code", {}, t.path)
            : h("a", { href: hrefRaw(key, t.path), target: "_blank", rel: "noopener" }, t.path),
          tr.partial_tail ? " — its last line is still being written and is not shown." : "",
          tr.bad_lines ? ` — ${tr.bad_lines} unreadable line(s) skipped.` : "",
        ),
        h("ol", { class: "turns" }, tr.turns.map(turnView)),
      );
    } catch (err) {
      return h("section", {}, h("h2", {}, title), errorBox(err.message));
    }
  }

  // ---- views: two runs -----------------------------------------------------

  function verdictCell(key, id, v) {
    if (!v) return h("td", { class: "muted" }, "not in this run");
    return h(
      "td",
      {},
      h("a", { href: hrefItem(key, id) }, badge(v.status, v.passed)),
      v.n ? ` ${v.correct} / ${v.n}` : "",
      v.reason ? h("div", { class: "small reason" }, v.reason) : null,
    );
  }

  async function viewCompare(a, b) {
    const {
      a: sa,
      b: sb,
      compare,
    } = await api("/api/compare", [
      ["a", a],
      ["b", b],
    ]);
    document.title = `${sa.run_id} vs ${sb.run_id} — a2a-bench view`;
    const head = (s, label) =>
      h(
        "div",
        { class: "side" },
        h("h2", {}, `${label}: `, h("a", { href: hrefRun(s.key) }, s.key)),
        h("p", {}, s.benchmark ?? "", " · ", s.participant ?? "—", " · ", scoreText(s), " · ", badge(s.status)),
      );
    const rows = compare.differing.map((d) =>
      h("tr", {}, h("td", {}, d.id), verdictCell(a, d.id, d.a), verdictCell(b, d.id, d.b)),
    );
    return [
      breadcrumb(h("span", {}, "Compare")),
      h(
        "header",
        { class: "page-head" },
        h("h1", {}, "Two runs side by side"),
        h("a", { href: hrefCompare(b, a) }, "swap"),
      ),
      h("div", { class: "sides" }, head(sa, "A"), head(sb, "B")),
      compare.duplicates && compare.duplicates.length
        ? h(
            "div",
            { class: "error-box", role: "alert", id: "compare-duplicates" },
            `${compare.duplicates.length} id(s) are carried by more than one row of a run and are not compared: ${clip(compare.duplicates.join(", "), 200)}.`,
          )
        : null,
      h(
        "p",
        {},
        `${fmtInt(compare.differing.length - compare.only_a - compare.only_b)} item(s) with a different verdict, ${fmtInt(compare.same)} the same`,
        compare.only_a || compare.only_b
          ? `, ${fmtInt(compare.only_a)} only in A, ${fmtInt(compare.only_b)} only in B`
          : "",
        ".",
      ),
      rows.length
        ? h(
            "table",
            { class: "grid", id: "compare-table" },
            h("thead", {}, h("tr", {}, h("th", {}, "Item"), h("th", {}, "A"), h("th", {}, "B"))),
            h("tbody", {}, rows),
          )
        : h("p", { class: "empty" }, "Every item has the same verdict in both runs."),
    ];
  }

  // ---- router --------------------------------------------------------------

  let renderSeq = 0;
  async function render() {
    const seq = ++renderSeq;
    const route = location.hash.split("?")[0] || "#/";
    delete document.body.dataset.ready;
    const { parts, query } = parseHash();
    let content;
    try {
      if (parts[0] === "run" && parts.length === 2) content = await viewRun(parts[1], query);
      else if (parts[0] === "item" && parts.length === 3) content = await viewItem(parts[1], parts[2], query);
      else if (parts[0] === "compare" && parts.length === 3) content = await viewCompare(parts[1], parts[2]);
      else if (parts[0] === "leaderboard") content = await viewLeaderboard(query);
      else content = await viewRuns(query);
    } catch (err) {
      content = [breadcrumb(), errorBox(err && err.message ? err.message : String(err))];
    }
    if (seq !== renderSeq) return; // a newer navigation won
    app.replaceChildren(...[content].flat(Infinity).filter(Boolean));
    // Tests (and the bench) wait for this: the route drawn, once it is drawn.
    document.body.dataset.ready = route;
    const wanted = query.get("sample");
    if (parts[0] === "item" && wanted !== null) document.getElementById(`completion-${wanted}`)?.scrollIntoView();
    else window.scrollTo(0, 0);
  }

  window.addEventListener("hashchange", () => void render());
  void render();
})();
