// The assay HTML report. Every element is built with createElement and every string from
// the data is set with textContent: data is shown as text, never parsed as markup.
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("assay-data").textContent);
  var RUNS = DATA.runs;
  // Repeated strings are held once in DATA.strings; fields hold their index.
  // (A run `assay view` sends when it is opened comes with strings of its own.)
  function unpool(r, pool) {
    function pooled(v) { return v === null || v === undefined ? v : pool[v]; }
    r.t = pooled(r.t); r.r = pooled(r.r); r.m = pooled(r.m); r.q = pooled(r.q);
    r.sc.forEach(function (sc) {
      sc.n = pooled(sc.n); sc.st = pooled(sc.st); sc.why = pooled(sc.why);
      sc.reason = pooled(sc.reason);
      (sc.k || []).forEach(function (k) { k[3] = pooled(k[3]); if (k[2] === true) k[2] = k[1]; });
    });
    return r;
  }
  RUNS.forEach(function (r) { unpool(r, DATA.strings); });
  var S = DATA.summary;
  var PAGE = 100;
  var SVG = "http://www.w3.org/2000/svg";
  var state = { status: "all", query: "", sort: null, desc: false, page: 0, view: [], total: 0 };
  var app = document.getElementById("app");

  var el = assayDom.el, show = assayDom.show;  // dom.js
  function svg(tag, attrs) {
    var node = document.createElementNS(SVG, tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") node.textContent = attrs[k]; else node.setAttribute(k, attrs[k]);
    });
    return node;
  }
  function pct(v) { return v === null || v === undefined ? "—" : (v * 100).toFixed(1) + " %"; }
  function num(v, digits) { return v === null || v === undefined ? "—" : v.toFixed(digits); }
  function usd(v) { return v === null || v === undefined ? "—" : "$" + v.toFixed(4); }
  function table(head, rows, numeric) {
    var tr = el("tr", null, head.map(function (h, i) {
      return el("th", { text: h, cls: numeric && numeric[i] ? "num" : "" });
    }));
    var body = el("tbody", null, rows.map(function (row) {
      return el("tr", null, row.map(function (cell, i) {
        if (cell instanceof Node) return el("td", null, [cell]);
        return el("td", { text: show(cell), cls: numeric && numeric[i] ? "num" : "" });
      }));
    }));
    // In a box that scrolls sideways: a wide table never widens the page (a phone's 420 px).
    return el("div", { cls: "wide" }, [el("table", null, [el("thead", null, [tr]), body])]);
  }
  function section(title, children) {
    return el("section", null, [el("h2", { text: title })].concat(children));
  }

  // Theme: follows prefers-color-scheme until the toggle sets one.
  function darkNow() {
    var set = document.documentElement.getAttribute("data-theme");
    if (set) return set === "dark";
    return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  }
  var toggle = el("button", { id: "theme-toggle", "data-testid": "theme-toggle",
    type: "button", text: "Toggle dark theme" });
  toggle.addEventListener("click", function () {
    document.documentElement.setAttribute("data-theme", darkNow() ? "light" : "dark");
  });

  var t = S.totals;
  app.appendChild(el("header", null, [
    el("div", null, [
      el("h1", { text: "assay report" }),
      el("div", { cls: "muted", text: "generated " + S.generated + " by assay " + S.version +
        (S.interrupted ? " — the evaluation was interrupted: only finished runs are shown" : "") })
    ]),
    toggle
  ]));

  // The headline: the one pass rate `--fail-under` checks, and the counts. Everything else
  // comes after the runs, labelled as what it is.
  var L = S.live;  // null unless the runs were made by `assay run`
  var R = S.repeats;  // null unless the runs were repetitions of live runs
  var judgeCost = S.judge.reduce(function (sum, j) { return sum + (j[2] || 0); }, 0);
  var counts = [show(t.passed) + " passed", show(t.failed) + " failed",
    show(t.unscored) + " unscored", show(t.errors) + " errors"];
  if (L) {
    counts.push(show(L.errors.agent_error) + " agent errors", show(L.errors.timeout) +
      " timeouts");
    if (L.errors.infrastructure_error) {
      counts.push(show(L.errors.infrastructure_error) + " infrastructure errors");
    }
  }
  counts.push(show(t.runs_read) + " runs read");
  app.appendChild(el("section", { "data-testid": "headline", cls: "headline" }, [
    el("span", { cls: "rate", "data-testid": "pass-rate", text: pct(L ? L.pass_rate :
      t.pass_rate) }),
    el("span", { cls: "muted", text: L ? "pass rate: passed of every run, a run whose agent " +
      "failed included (what --fail-under checks)" : "pass rate: passed of the runs scored " +
      "(what --fail-under checks)" }),
    el("span", { "data-testid": "counts", text: counts.join(" · ") })
  ]));
  var more = el("div", { "data-testid": "more" });
  var cards = [
    ["runs read", show(t.runs_read)], ["scored", show(t.scored)], ["passed", show(t.passed)],
    ["failed", show(t.failed)],
    ["unscored", show(t.unscored) + (t.partially_scored ? " (" + t.partially_scored +
      " partially)" : "")],
    ["errors", show(t.errors)], ["skipped", show(t.skipped)],
    ["agent cost", usd(S.ops.est_cost_usd_total)],
    ["judge cost", !S.judge.length ? "—" : usd(judgeCost) +
      (S.judge.some(function (j) { return j[2] === null; }) ? " + unpriced" : "")]
  ];
  if (L) {
    cards.push(["breakdown: pass rate of the runs scored", pct(t.pass_rate)]);
    cards.push(["mean score of every run", L.overall_score === null ? "—" :
      L.overall_score.toFixed(3)]);
  }
  more.appendChild(section("Totals", [el("div", { "data-testid": "summary", cls: "cards" },
    cards.map(function (c) {
      return el("div", { cls: "card", "data-card": c[0] }, [
        el("div", { cls: "value", text: c[1] }), el("div", { cls: "label", text: c[0] })]);
    }))]));

  // Red flags and what was not scored.
  if (S.flags.length) {
    more.appendChild(section("Red flags", [table(
      ["red flag", "metric", "value", "threshold", "status", "action"],
      S.flags.map(function (f) {
        return [f[0], f[1], f[2] === null ? "—" : f[2].toFixed(3), f[3] + " " + show(f[4]),
          el("span", { cls: "flag-" + f[5], text: f[5] }), f[6]];
      }))]));
  }
  if (S.not_scored.length || S.scenario_problems.length || S.line_problem_count) {
    var parts = [];
    if (S.not_scored.length) {
      parts.push(table(["kind", "input", "reason", "run id", "scenario id"], S.not_scored));
      if (S.not_scored_count > S.not_scored.length) {
        parts.push(el("div", { cls: "muted", "data-testid": "not-scored-more", text: "… and " +
          (S.not_scored_count - S.not_scored.length) + " more (_aggregate.json lists them " +
          "all)" }));
      }
    }
    if (S.scenario_problems.length) {
      parts.push(el("h3", { text: "scenario problems" }));
      parts.push(table(["source", "reason"], S.scenario_problems));
    }
    if (S.line_problem_count) {
      parts.push(el("h3", { text: S.line_problem_count +
        " line(s) of results.jsonl are not results (not in the table below)" }));
      parts.push(table(["line", "reason"], S.line_problems));
    }
    more.appendChild(section("Inputs not scored", parts));
  }

  // Repeated runs: pass@k and pass^k, and each case's repetitions.
  if (R) {
    var counted = R.n === R.n_max ? show(R.n) : show(R.n) + " to " + show(R.n_max);
    var repeatParts = [
      el("div", { cls: "muted", text: counted + " repetitions of " + R.case_count +
        " case(s): " + show(R.runs) + " runs" + (R.not_scored ? ", " + R.not_scored +
        " not scored (counted as not passed)" : "") + "; mean score " + num(R.mean, 3) +
        (R.ci ? " [95% CI " + num(R.ci[0], 3) + ", " + num(R.ci[1], 3) + "]" : "") }),
      el("div", { "data-testid": "repeats-k" }, [table(["k", "pass@k", "pass^k"],
        R.k.map(function (row) { return [row[0], pct(row[1]), pct(row[2])]; }),
        [true, true, true])]),
      el("div", { cls: "muted", "data-testid": "flaky", text: "flaky cases (" + R.flaky_count +
        "): " + (R.flaky.length ? R.flaky.join(", ") : "none") +
        (R.flaky_count > R.flaky.length ? " … and " + (R.flaky_count - R.flaky.length) +
          " more" : "") }),
      el("div", { "data-testid": "repeats-table" }, [table(
        ["case", "runs", "passed", "not scored", "pass@1", "pass^n", "mean score", "95% CI",
          "flaky"],
        R.cases.map(function (c) {
          return [c[0], c[1], c[2], c[3], pct(c[4]), pct(c[5]), num(c[6], 3),
            c[7] === null ? "—" : num(c[7], 3) + "–" + num(c[8], 3), c[9] ? "flaky" : ""];
        }), [false, true, true, true, true, true, true, true, false])])
    ];
    if (R.case_count > R.cases.length) {
      repeatParts.push(el("div", { cls: "muted", text: "… " + (R.case_count - R.cases.length) +
        " more cases (the aggregate lists them all)" }));
    }
    more.appendChild(section("Repetitions", repeatParts));
  }

  // Breakdowns.
  var groupHead = ["scored", "passed", "pass rate", "mean score", "unscored", "partially",
    "errors"];
  function groupRows(rows) {
    return rows.map(function (g) {
      return [g[0], g[1], g[2], pct(g[3]), num(g[4], 3), g[5], g[6], g[7]];
    });
  }
  var numeric = [false, true, true, true, true, true, true, true];
  more.appendChild(section("By scorer", [table(["scorer"].concat(groupHead),
    groupRows(S.by_scorer), numeric)]));
  more.appendChild(section("Runner × model", [table(
    ["runner", "model", "scored", "passed", "pass rate", "mean score"],
    S.by_runner_model.map(function (g) {
      return [g[0], g[1], g[2], g[3], pct(g[4]), num(g[5], 3)];
    }), [false, false, true, true, true, true])]));
  more.appendChild(section("By scenario type", [table(["scenario type"].concat(groupHead),
    groupRows(S.by_type), numeric)]));

  // Charts, drawn as inline SVG.
  function barChart(title, labels, values, maxValue, format) {
    var rowH = 22, labelW = 200, w = 580, h = Math.max(rowH * labels.length + 10, 40);
    var box = svg("svg", { viewBox: "0 0 " + w + " " + h, width: w, height: h, role: "img" });
    box.appendChild(svg("title", { text: title }));
    labels.forEach(function (label, i) {
      var y = 5 + i * rowH, v = values[i];
      var shown = label.length > 28 ? label.slice(0, 27) + "…" : label;
      var name = svg("text", { x: labelW - 6, y: y + 14, "text-anchor": "end", text: shown });
      if (shown !== label) name.appendChild(svg("title", { text: label }));  // the whole name
      box.appendChild(name);
      var width = v === null ? 0 : Math.max(0, (w - labelW - 70) * v / (maxValue || 1));
      box.appendChild(svg("rect", { x: labelW, y: y + 3, width: width, height: rowH - 8,
        "class": "bar" }));
      box.appendChild(svg("text", { x: labelW + width + 4, y: y + 14, text: format(v) }));
    });
    return el("div", { cls: "chart" }, [el("h3", { text: title }), box]);
  }
  function histogram(title, bins) {
    var w = 560, h = 190, left = 40, bottom = 30, top = 20;  // room for the tallest bar's count
    var max = Math.max.apply(null, bins.concat([1]));
    var box = svg("svg", { viewBox: "0 0 " + w + " " + h, width: w, height: h, role: "img" });
    box.appendChild(svg("title", { text: title }));
    var bw = (w - left - 10) / bins.length;
    box.appendChild(svg("line", { x1: left, y1: h - bottom, x2: w - 10, y2: h - bottom,
      "class": "axis" }));
    bins.forEach(function (n, i) {
      var bh = (h - bottom - top) * n / max, x = left + i * bw;
      box.appendChild(svg("rect", { x: x + 2, y: h - bottom - bh, width: bw - 4, height: bh,
        "class": "bar" }));
      box.appendChild(svg("text", { x: x + bw / 2, y: h - bottom - bh - 3,
        "text-anchor": "middle", text: String(n) }));
      box.appendChild(svg("text", { x: x + bw / 2, y: h - bottom + 14, "text-anchor": "middle",
        text: (i / 10).toFixed(1) + "–" + ((i + 1) / 10).toFixed(1) }));
    });
    return el("div", { cls: "chart" }, [el("h3", { text: title }), box]);
  }
  more.appendChild(section("Charts", [el("div", { cls: "charts" }, [
    histogram("Score distribution (runs with a score)", DATA.histogram),
    barChart("Pass rate by runner | model", S.by_runner_model.map(function (g) {
      return g[0] + (g[1] === null ? "" : " | " + g[1]);
    }), S.by_runner_model.map(function (g) { return g[4]; }), 1, pct),
    barChart("Pass rate by scenario type", S.by_type.map(function (g) { return g[0]; }),
      S.by_type.map(function (g) { return g[3]; }), 1, pct)
  ])]));

  // The table of runs: filters, search, sorting and paging; done here on the page's runs, or
  // by `assay view`'s server (REMOTE), which sends a page of rows at a time.
  var REMOTE = DATA.remote || null;
  var byStatus = { all: RUNS.length, passed: 0, failed: 0, unscored: 0, error: 0 };
  if (REMOTE) byStatus = REMOTE.counts;
  else RUNS.forEach(function (r) { byStatus[r.st] += 1; });
  var filters = ["all", "passed", "failed", "unscored", "error"].map(function (s) {
    var b = el("button", { type: "button", "data-testid": "status-filter", "data-status": s,
      "aria-pressed": s === "all" ? "true" : "false", text: s + " (" + byStatus[s] + ")" });
    b.addEventListener("click", function () {
      state.status = s; state.page = 0;
      filters.forEach(function (f) { f.setAttribute("aria-pressed", f === b ? "true" : "false"); });
      refresh();
    });
    return b;
  });
  var search = el("input", { type: "search", "data-testid": "search",
    placeholder: "search run id, scenario id, answer", "aria-label": "search runs" });
  var typing = null;
  search.addEventListener("input", function () {
    state.query = search.value.toLowerCase(); state.page = 0;
    if (!REMOTE) { refresh(); return; }
    clearTimeout(typing);  // one request when the typing pauses, not one a key
    typing = setTimeout(refresh, 120);
  });
  var repeated = REMOTE ? REMOTE.repeated : RUNS.some(function (r) { return r.p !== null; });
  // Each column: its name, its sort key here, its name for the server.
  var columns = [
    ["run id", function (r) { return r.i === null ? "" : r.i; }, "run_id"],
    ["scenario", function (r) { return r.s; }, "scenario"],
    ["repeat", function (r) { return r.p === null ? -1 : r.p; }, "repeat"],
    ["status", function (r) { return r.st; }, "status"],
    ["score", function (r) { return r.v === null ? -1 : r.v; }, "score"],
    ["runner", function (r) { return r.r || ""; }, "runner"],
    ["model", function (r) { return r.m || ""; }, "model"],
    ["cost", function (r) { return r.o[2] === null ? -1 : r.o[2]; }, "cost"],
    ["rationale", null]
  ];
  // Offline evaluations have no repetitions: no repeat column. With repetitions, a case's
  // runs stand together (by scenario, then repeat) until a column is chosen.
  if (!repeated) columns.splice(2, 1);
  var byCase = function (a, b) {
    var x = RUNS[a], y = RUNS[b];
    if (x.s !== y.s) return x.s < y.s ? -1 : 1;
    return (x.p || 0) - (y.p || 0) || a - b;
  };
  var headRow = el("tr", null, columns.map(function (c, i) {
    var th = el("th", { text: c[0], cls: c[1] ? "sortable" : "" });
    if (c[1]) {
      th.addEventListener("click", function () {
        state.desc = state.sort === i ? !state.desc : false;
        state.sort = i; state.page = 0; refresh();
      });
    }
    return th;
  }));
  var tbody = el("tbody");
  var pageInfo = el("span", { cls: "muted" });
  var prev = el("button", { type: "button", text: "‹ previous", "data-testid": "page-prev" });
  var next = el("button", { type: "button", text: "next ›", "data-testid": "page-next" });
  function turn(page) { state.page = page; if (REMOTE) refresh(); else draw(); }
  prev.addEventListener("click", function () { if (state.page > 0) turn(state.page - 1); });
  next.addEventListener("click", function () {
    if ((state.page + 1) * PAGE < (REMOTE ? state.total : state.view.length)) {
      turn(state.page + 1);
    }
  });
  // The drill-down: a panel beside the table, with its own address (#run=N), so that the
  // back button and Escape close it and a link opens it.
  var detail = el("aside", { "data-testid": "case-detail", cls: "panel", role: "dialog",
    "aria-label": "run detail", hidden: "" });
  app.appendChild(section("Runs", [
    el("div", { cls: "toolbar" }, filters.concat([search])),
    el("div", { cls: "wide" }, [
      el("table", { "data-testid": "runs-table" }, [el("thead", null, [headRow]), tbody])]),
    el("div", { cls: "pager" }, [prev, pageInfo, next])
  ]));
  app.appendChild(more);
  app.appendChild(detail);

  var haystacks = null;
  function haystack(i) {
    if (haystacks === null) haystacks = new Array(RUNS.length);
    if (haystacks[i] === undefined) {
      var r = RUNS[i];
      haystacks[i] = ((r.i || "") + "\n" + r.s + "\n" + (r.a || "")).toLowerCase();
    }
    return haystacks[i];
  }
  var asked = 0;  // the newest request for rows: an older answer is dropped
  function fetchRows() {
    var mine = ++asked;
    var params = new URLSearchParams({ status: state.status, q: state.query,
      sort: state.sort === null ? "" : columns[state.sort][2], desc: state.desc ? "1" : "0",
      page: String(state.page) });
    fetch("api/runs?" + params.toString()).then(function (response) {
      if (!response.ok) throw new Error("HTTP " + response.status);
      return response.json();
    }).then(function (found) {
      if (mine !== asked) return;
      state.view = found.rows.map(function (r) {
        if (!RUNS[r.n] || RUNS[r.n].lazy) RUNS[r.n] = unpool(r, found.strings);
        return r.n;
      });
      state.total = found.total;
      draw();
    }).catch(function (err) {
      if (mine !== asked) return;
      state.view = []; state.total = 0; draw();
      pageInfo.textContent = "the runs could not be loaded: " + String(err && err.message || err);
    });
  }
  function refresh() {
    if (REMOTE) { fetchRows(); return; }
    var view = [];
    for (var i = 0; i < RUNS.length; i++) {
      if (state.status !== "all" && RUNS[i].st !== state.status) continue;
      if (state.query && haystack(i).indexOf(state.query) < 0) continue;
      view.push(i);
    }
    if (state.sort !== null) {
      var key = columns[state.sort][1], sign = state.desc ? -1 : 1;
      view.sort(function (a, b) {
        var x = key(RUNS[a]), y = key(RUNS[b]);
        return (x < y ? -1 : x > y ? 1 : a - b) * sign;
      });
    } else if (repeated) {
      view.sort(byCase);
    }
    state.view = view;
    draw();
  }
  function draw() {
    var rows = document.createDocumentFragment();
    // Here: every matching run, a page of them shown; remote: the page itself.
    var total = REMOTE ? state.total : state.view.length;
    var start = state.page * PAGE, end = Math.min(start + PAGE, total);
    var first = REMOTE ? 0 : start;
    for (var k = first; k < first + (end - start); k++) rows.appendChild(row(state.view[k]));
    tbody.replaceChildren(rows);
    pageInfo.textContent = total ? "runs " + (start + 1) + "–" + end + " of " + total :
      "no runs match";
    prev.disabled = state.page === 0;
    next.disabled = end >= total;
  }
  function row(index) {
    var r = RUNS[index];
    var tr = el("tr", { "data-testid": "case-row", "data-status": r.st,
      "data-index": String(index) }, [
      el("td", { text: show(r.i) }), el("td", { text: r.s }),
      repeated ? el("td", { cls: "num", "data-testid": "repeat", text: show(r.p) }) : null,
      el("td", { cls: "status s-" + r.st, text: r.st + (r.ps ? " (partially scored)" : "") }),
      el("td", { cls: "num", text: num(r.v, 3) }),
      el("td", { text: show(r.r) }), el("td", { text: show(r.m) }),
      el("td", { cls: "num", text: usd(r.o[2]) }),
      el("td", { text: r.why })
    ]);
    tr.tabIndex = 0;
    tr.addEventListener("keydown", function (event) {
      if (event.key === "Enter") tr.click();
    });
    tr.addEventListener("click", function () { openRun(index); });
    return tr;
  }

  // The drill-down of one run.
  function block(label, value) {
    return el("div", null, [el("h3", { text: label }),
      el("div", { cls: "pre", text: value === null ? "(none)" : value })]);
  }
  function scorerPart(sc) {
    var out = [el("h3", { text: "scorer " + sc.n + ": " + sc.st +
      (sc.p === true ? ", passed" : sc.p === false ? ", failed" : "") +
      (sc.v === null || sc.v === undefined ? "" : ", score " + sc.v.toFixed(3)) })];
    if (sc.why) out.push(el("div", { cls: "pre", text: sc.why }));
    if (sc.reason) out.push(el("div", { cls: "muted", text: "reason: " + sc.reason }));
    if (sc.k) {
      out.push(el("div", { "data-testid": "key-table" }, [table(
        ["key", "gold value", "model value", "match type", "similarity"],
        sc.k.map(function (k) {
          return [k[0], k[1], k[2] === null ? "(missing)" : k[2],
            el("span", { cls: "m-" + k[3], text: k[3] }), num(k[4], 3)];
        }), [false, false, false, false, true])]));
      if (sc.kcut) out.push(el("div", { cls: "muted", text: "… " + sc.kcut + " more keys" }));
    }
    if (sc.mk) out.push(el("div", { "data-testid": "missing-keys", cls: "pre",
      text: "missing keys: " + sc.mk.join(", ") }));
    if (sc.xk) out.push(el("div", { "data-testid": "extra-keys", cls: "pre",
      text: "extra keys: " + sc.xk.join(", ") }));
    if (sc.tj) out.push(trajectory(sc.tj));
    if (sc.rb) {
      out.push(table(["rubric", "weight", "score", "verdict", "rationale"], sc.rb.map(function (b) {
        return [b[0], num(b[1], 2), num(b[2], 3), b[3] === true ? "passed" :
          b[3] === false ? "failed" : "—", b[4]];
      })));
    }
    if (sc.cr) out.push(table(["criterion", "verdict"], sc.cr));
    if (sc.j) {
      out.push(el("div", { cls: "muted", text: "judge " + show(sc.j.model) + ": " +
        show(sc.j.calls) + " call(s), " + show(sc.j.in) + " in / " + show(sc.j.out) +
        " out tokens, " + usd(sc.j.cost) }));
    }
    if (sc.notes) out.push(el("div", { cls: "muted", text: "notes: " + sc.notes }));
    return el("div", { "data-scorer": sc.n }, out);
  }
  function trajectory(tj) {
    // Pairs as the trajectory scorer made them, in expected-step order; unexpected calls
    // go after the expected call whose actual step precedes them.
    var pairs = tj.pairs.slice().sort(function (a, b) {
      var x = a[0] !== null ? a[0] : (a[2] === null ? 1e9 : a[2] - 0.5);
      var y = b[0] !== null ? b[0] : (b[2] === null ? 1e9 : b[2] - 0.5);
      return x - y;
    });
    var rows = [];
    pairs.forEach(function (p) {
      // A fifth item: the same tool called with other arguments, each difference listed.
      var kind = p.length > 4 ? "args_differ" : p[1] !== null && p[3] !== null ? "matched" :
        p[1] !== null ? "missing" : "unexpected";
      var label = kind === "args_differ" ? "argument differences" : kind;
      rows.push(el("tr", { "data-testid": "trajectory-pair", "data-kind": kind }, [
        el("td", { cls: "num", text: show(p[0]) }), el("td", { cls: "pre", text: show(p[1]) }),
        el("td", { cls: "m-" + kind, text: label }),
        el("td", { cls: "num", text: show(p[2]) }), el("td", { cls: "pre", text: show(p[3]) })
      ]));
      if (kind === "args_differ") rows.push(argumentRows(p[4]));
    });
    var head = el("tr", null, ["step", "expected call", "", "step", "actual call"].map(
      function (h) { return el("th", { text: h }); }));
    var parts = [
      el("div", { cls: "muted", text: "trajectory (" + show(tj.mode) + "): " +
        show(tj.expected) + " expected, " + show(tj.actual) + " actual calls" }),
      el("table", { "data-testid": "trajectory" }, [el("thead", null, [head]),
        el("tbody", null, rows)])
    ];
    if (tj.cut) parts.push(el("div", { cls: "muted", text: "… " + tj.cut + " more calls" }));
    return el("div", null, parts);
  }
  function argumentRows(args) {
    // Under a pair whose arguments differ: each argument with its expected and actual value.
    var absent = function (v) { return v === null ? "(absent)" : v; };
    var rows = args.map(function (a) {
      return el("tr", { "data-testid": "argument-difference", "data-kind": a[1] }, [
        el("td", { cls: "pre", text: a[0] === "" ? "(the arguments)" : a[0] }),
        el("td", { cls: "m-" + a[1], text: a[1] }),
        el("td", { cls: "pre arg-expected", text: absent(a[2]) }),
        el("td", { cls: "pre arg-actual", text: absent(a[3]) })
      ]);
    });
    var head = el("tr", null, ["argument", "difference", "expected value", "actual value"].map(
      function (h) { return el("th", { text: h }); }));
    var inner = el("table", { cls: "arg-diff" }, [el("thead", null, [head]),
      el("tbody", null, rows)]);
    var cell = el("td", null, [inner]);
    cell.colSpan = 5;
    return el("tr", { "data-testid": "argument-differences" }, [cell]);
  }
  function showDetail(r) {
    var gold = [];
    r.sc.forEach(function (sc) {
      // An extra key is the answer's, not the gold's: its record has no gold value.
      (sc.k || []).forEach(function (k) { if (k[3] !== "extra") gold.push([k[0], k[1]]); });
    });
    var o = r.o;
    var combined = r.sc.length > 1;
    var heading = el("h2", { id: "detail-title", tabindex: "-1",
      text: "run " + show(r.i) + " — scenario " + r.s });
    var close = el("button", { type: "button", cls: "close", "data-testid": "detail-close",
      "aria-label": "close the run detail", text: "✕ close" });
    close.addEventListener("click", closeRun);
    var parts = [
      el("div", { cls: "panel-head" }, [heading, close]),
      el("div", null, [el("span", { cls: "status s-" + r.st, text: r.st }),
        el("span", { text: (r.p === null ? "" : " repeat " + r.p + " ·") +
          (combined ? " combined score of " + r.sc.length + " scorers " : " score ") +
          num(r.v, 3) + " · runner " + show(r.r) + " · model " +
          show(r.m) + " · scenario type " + show(r.t) + " · report " + show(r.f) })]),
      r.why ? el("div", { cls: "pre", text: r.why }) : null,
      r.nr ? el("div", { cls: "muted", "data-testid": "no-run-report",
        text: "the run's own report (" + show(r.f) + ") could not be read: per-key " +
          "details are not shown" }) : null,
      block("question", r.q),
      el("div", { cls: "grid2" }, [
        block("answer", r.a),
        el("div", { "data-testid": "gold-answer" }, [el("h3", { text: "gold answer" }),
          r.g !== null && r.g !== undefined ? el("div", { cls: "pre", text: r.g }) : null,
          gold.length ? table(["key", "gold value (as scored)"], gold) : null,
          r.g == null && !gold.length ?
            el("div", { cls: "muted", text: "the report holds no gold answer for this run" }) :
            null].filter(Boolean))
      ]),
      el("h3", { text: "usage" }),
      table(["tokens in", "tokens out", "cost", "latency", "turns", "tool calls"], [[
        show(o[0]), show(o[1]), usd(o[2]), o[3] === null ? "—" : (o[3] / 1000).toFixed(2) + " s",
        show(o[4]), show(o[5])]], [true, true, true, true, true, true])
    ];
    var conversation = el("div", { "data-testid": "transcript-part" });
    parts.push(el("h3", { text: "transcript" }), conversation);
    fillTranscript(conversation, r);
    parts.push(el("h3", { text: combined ? "verdicts (each scorer's own; the run's score " +
      "combines them)" : "verdict" }));
    r.sc.forEach(function (sc) { parts.push(scorerPart(sc)); });
    detail.replaceChildren.apply(detail, parts.filter(Boolean));
    detail.hidden = false;
    document.body.classList.add("panel-open");
    heading.focus();
  }

  // The transcript of a run: in the page (failed and errored runs, within its budget), or
  // loaded from `assay view` when the run is opened.
  function fillTranscript(box, r) {
    if (r.tr) { box.replaceChildren(transcript(r.tr)); return; }
    if (DATA.lazy) {
      box.replaceChildren(el("div", { cls: "muted", "data-testid": "no-transcript",
        text: r.lazy ? "the run's details could not be loaded: " + show(r.failed) :
          "the run's report holds no transcript" }));
      return;
    }
    box.replaceChildren(el("div", { cls: "muted", "data-testid": "no-transcript",
      text: r.st === "failed" || r.st === "error" ?
        "this page left the transcript out (its transcripts reached the page's size " +
        "budget); assay view shows every run's transcript" :
        "a static page keeps the transcripts of failed and errored runs only; assay view " +
        "shows every run's" }));
  }
  var FOLD = 1200;
  function folded(value, testid) {
    var box = el("div", { cls: "pre", "data-testid": testid || "text" });
    if (value.length <= FOLD) { box.textContent = value; return box; }
    box.textContent = value.slice(0, FOLD) + "…";
    var unfold = el("button", { type: "button", cls: "unfold",
      text: "show all " + value.length + " characters" });
    unfold.addEventListener("click", function () { box.textContent = value; unfold.remove(); });
    return el("div", null, [box, unfold]);
  }
  function callPart(c) {
    return el("div", { cls: "call", "data-testid": "tool-call" }, [
      el("div", { cls: "call-name", text: "calls " + c[0] + (c[3] ? " (" + c[3] + ")" : "") }),
      c[1] !== null ? el("div", null, [el("div", { cls: "muted", text: "arguments" }),
        folded(c[1], "call-args")]) : null,
      c[2] !== null ? el("div", null, [el("div", { cls: "muted", text: "result" }),
        folded(c[2], "call-result")]) : null
    ]);
  }
  function transcript(entries) {
    var list = el("ol", { cls: "transcript", "data-testid": "transcript" });
    var turn = null;
    entries.forEach(function (e) {
      if (e[0] === "cut") {
        list.appendChild(el("li", { cls: "cut muted", text: "… " + e[1] +
          " entries left out (the report keeps the first and the last)" }));
        return;
      }
      if (e[4] !== null && e[4] !== turn) {
        turn = e[4];
        list.appendChild(el("li", { cls: "turn", "data-testid": "turn",
          text: "turn " + (turn + 1) }));
      }
      var meta = [e[0]];
      if (e[5]) meta.push(e[5]);
      if (e[3]) meta.push("result of " + e[3]);
      if (e[6] !== null || e[7] !== null) {
        meta.push(show(e[6]) + " tokens in, " + show(e[7]) + " out");
      }
      if (e[8] !== null) meta.push((e[8] / 1000).toFixed(2) + " s");
      list.appendChild(el("li", { cls: "entry", "data-testid": "entry", "data-role": e[0] },
        [el("div", { cls: "meta", text: meta.join(" · ") }),
          e[1] !== null ? folded(e[1]) : null].concat(e[2].map(callPart))));
    });
    return list;
  }

  // Opening and closing the panel goes through the address: #run=N.
  var opener = null;
  var shown = null;  // the run the panel shows
  function openRun(index) {
    opener = index;
    if (location.hash !== "#run=" + index) location.hash = "run=" + index;
    route();  // now, not when the hashchange event comes: a click shows the run at once
  }
  function closeRun() {
    if (/^#run=/.test(location.hash)) {
      if (opener !== null) history.back();
      else history.replaceState(null, "", location.pathname + location.search);
    }
    opener = null;
    hideDetail();
  }
  function hideDetail() {
    shown = null;
    if (detail.hidden) return;
    detail.hidden = true;
    document.body.classList.remove("panel-open");
    var old = tbody.querySelector("tr.selected");
    if (old) { old.classList.remove("selected"); old.focus(); }
  }
  function route() {
    var found = /^#run=(\d+)$/.exec(location.hash);
    var index = found ? Number(found[1]) : -1;
    if (index < 0 || index >= (REMOTE ? REMOTE.runs : RUNS.length)) { hideDetail(); return; }
    if (index === shown) return;  // (the hashchange after a click)
    shown = index;
    var old = tbody.querySelector("tr.selected");
    if (old) old.classList.remove("selected");
    var row = tbody.querySelector('tr[data-index="' + index + '"]');
    if (row) row.classList.add("selected");
    var r = RUNS[index];
    if (r && (!r.lazy || r.failed)) { showDetail(r); return; }
    // `assay view`: the run's details and transcript, from its own report, once.
    fetch("api/run/" + index).then(function (response) {
      if (!response.ok) throw new Error("HTTP " + response.status);
      return response.json();
    }).then(function (found) {
      RUNS[index] = unpool(found.run, found.strings);
      haystacks = null;
    }).catch(function (err) {
      if (r) r.failed = String(err && err.message || err);
    }).then(function () {
      if (location.hash !== "#run=" + index) return;
      if (RUNS[index]) { showDetail(RUNS[index]); return; }
      detail.replaceChildren(el("div", { cls: "muted", text: "run " + index +
        " could not be loaded" }));
      detail.hidden = false;
    });
  }
  window.addEventListener("hashchange", route);
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && !detail.hidden) { event.preventDefault(); closeRun(); }
  });

  refresh();
  route();
  document.documentElement.setAttribute("data-ready", "1");
})();
