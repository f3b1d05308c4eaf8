// The assay comparison page. Every element is built with createElement and every string from
// the data is set with textContent: data is shown as text, never parsed as markup.
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("assay-data").textContent);
  var KIND_TITLES = { regressed: "regressed", improved: "improved", unchanged: "unchanged",
    unscored: "unscored", only_in_base: "only in BASE", only_in_new: "only in NEW" };
  var LIMIT = 500;
  var state = { scorer: D.combined, kind: "all", query: "", selected: null, limit: LIMIT };
  var app = document.getElementById("app");

  var el = assayDom.el, show = assayDom.show;  // dom.js
  function score(v) { return v === null ? "—" : v.toFixed(3); }
  function own(object, key) { return Object.prototype.hasOwnProperty.call(object, key); }
  function verdictOf(side, scorer) {
    return side && own(side.v, scorer) ? side.v[scorer] : null;
  }
  function shortVerdict(side, scorer) {
    if (!side) return "absent";
    var v = verdictOf(side, scorer);
    if (!v) return "—";
    if (v[0] !== "scored") return v[0];
    return (v[1] ? "pass " : "fail ") + score(v[2]);
  }

  // The verdict first, then each scorer's figures, the warnings and the problems.
  app.appendChild(el("header", null, [el("div", null, [
    el("h1", { "data-testid": "verdict", "data-verdict": D.verdict,
      cls: "verdict-" + D.verdict.replace(/ /g, "-"), text: "assay compare: " + D.verdict_title }),
    el("div", { cls: "muted", text: "BASE " + D.base.directory + " (" + show(D.base.results) +
      " runs, " + D.base.generated_at + ") → NEW " + D.new.directory + " (" +
      show(D.new.results) + " runs, " + D.new.generated_at + ")" }),
    el("div", { cls: "muted", text: "Significance level " + D.alpha + ": McNemar's exact " +
      "test on pass/fail flips, and the interval of a sign-flip test of the mean score " +
      "change (whole scenarios flipped; up to " + D.resamples + " patterns, seed " + D.seed +
      ")." })
  ])]));
  var warnings = el("div", { "data-testid": "warnings" }, D.warnings.map(function (w) {
    return el("div", { cls: "warning", "data-testid": "warning", text: "Warning: " + w });
  }));
  app.appendChild(warnings);

  var head = ["scorer", "verdict", "paired runs", "pass rate", "mean score",
    "mean change [CI]", "p (McNemar)", "flips", "regressed", "improved", "unchanged",
    "unscored", "only BASE", "only NEW"];
  var figures = el("table", { "data-testid": "figures" }, [
    el("thead", null, [el("tr", null, head.map(function (h) { return el("th", { text: h }); }))]),
    el("tbody", null, D.scorers.map(function (s) {
      var cells = [s.name, s.verdict_title, String(s.paired), s.pass_rate, s.mean_score,
        s.mean_change, s.p_value, s.flips].concat(D.kinds.map(function (k) {
        return String(s.counts[k]);
      }));
      return el("tr", { "data-testid": "scorer-figures", "data-scorer": s.name },
        cells.map(function (c, i) {
          return el("td", { text: c, cls: i === 1 ? "verdict-" + s.verdict.replace(/ /g, "-") : "" });
        }));
    }))
  ]);
  app.appendChild(el("section", null, [el("h2", { text: "Scorers" }), figures]));
  if (D.repeats.length) {
    // Each side's repeated live runs: pass@1, pass@n, pass^n and the flaky cases.
    var repeatTable = el("table", { "data-testid": "repeats" }, [
      el("thead", null, [el("tr", null, ["", "BASE", "NEW"].map(function (h) {
        return el("th", { text: h });
      }))]),
      el("tbody", null, D.repeats.map(function (row) {
        return el("tr", { "data-figure": row[0] }, row.map(function (c) {
          return el("td", { text: c });
        }));
      }))
    ]);
    app.appendChild(el("section", null, [
      el("h2", { text: "Repeats" }),
      D.matched_by === "scenario_id+repeat" ? el("div", { cls: "muted",
        text: "Runs are matched by scenario and repeat: the k-th repetition of a case in " +
          "BASE with its k-th in NEW." }) : null,
      repeatTable
    ].concat(D.flaky_changes.map(function (change) {
      return el("div", { "data-testid": "flaky-change", text: change[0] + " (" +
        change[1].length + "): " + change[1].join(", ") });
    }))));
  }
  if (D.problems.length) {
    app.appendChild(el("section", { "data-testid": "problems" }, [
      el("h2", { text: "Results that could not be compared (" + D.problems.length + ")" }),
      el("ul", null, D.problems.map(function (p) {
        return el("li", { text: (p[0] === "base" ? "BASE: " : "NEW: ") + p[1] });
      }))
    ]));
  }

  // The paired runs of one scorer.
  var select = el("select", { "data-testid": "scorer-select", "aria-label": "scorer" },
    D.scorers.map(function (s) { return el("option", { value: s.name, text: s.name }); }));
  if (state.scorer !== null) select.value = state.scorer;
  select.addEventListener("change", function () {
    state.scorer = select.value; state.selected = null; state.limit = LIMIT; draw();
  });
  var search = el("input", { type: "search", "data-testid": "search",
    placeholder: "search run, scenario, answer, rationale", "aria-label": "search" });
  search.addEventListener("input", function () {
    state.query = search.value.toLowerCase(); state.limit = LIMIT; draw();
  });
  var filters = el("span", { cls: "toolbar" });
  var toolbar = el("div", { cls: "toolbar" }, [el("label", { text: "scorer " }), select,
    filters, search]);
  var count = el("div", { cls: "muted", "data-testid": "row-count" });
  var tbody = el("tbody");
  var rowsTable = el("table", { "data-testid": "changes" }, [
    el("thead", null, [el("tr", null, ["run", "scenario", "BASE", "", "NEW", "change"]
      .map(function (h) { return el("th", { text: h }); }))]), tbody]);
  var more = el("button", { type: "button", "data-testid": "more", text: "show more" });
  more.addEventListener("click", function () { state.limit += LIMIT; draw(); });
  var detail = el("div", { cls: "detail", "data-testid": "change-detail", hidden: "" });
  app.appendChild(el("section", null, [el("h2", { text: "Runs" }), toolbar, count, rowsTable,
    more, detail]));

  function haystack(run) {
    var parts = [run.i, run.s];
    [run.b, run.n].forEach(function (side) {
      if (!side) return;
      if (side.a !== null) parts.push(side.a);
      var v = verdictOf(side, state.scorer);
      if (v) parts.push(v[3]);
    });
    return parts.join("\n").toLowerCase();
  }
  function inScorer() {
    return D.runs.filter(function (r) { return own(r.k, state.scorer); });
  }
  function drawFilters(runs) {
    filters.textContent = "";
    ["all"].concat(D.kinds).forEach(function (kind) {
      var n = kind === "all" ? runs.length :
        runs.filter(function (r) { return r.k[state.scorer] === kind; }).length;
      var b = el("button", { type: "button", "data-testid": "change-filter", "data-kind": kind,
        "aria-pressed": String(state.kind === kind),
        text: (kind === "all" ? "all" : KIND_TITLES[kind]) + " (" + n + ")" });
      b.addEventListener("click", function () { state.kind = kind; state.limit = LIMIT; draw(); });
      filters.appendChild(b);
    });
  }
  function draw() {
    var runs = inScorer();
    drawFilters(runs);
    var view = runs.filter(function (r) {
      return (state.kind === "all" || r.k[state.scorer] === state.kind) &&
        (!state.query || haystack(r).indexOf(state.query) !== -1);
    });
    tbody.textContent = "";
    view.slice(0, state.limit).forEach(function (run) {
      var kind = run.k[state.scorer];
      var tr = el("tr", { "data-testid": "change-row", "data-kind": kind, tabindex: "0" }, [
        el("td", { text: run.i + (run.p === null ? "" : " (repeat " + run.p + ")") }),
        el("td", { text: run.s }),
        el("td", { text: shortVerdict(run.b, state.scorer) }),
        el("td", { text: "→" }),
        el("td", { text: shortVerdict(run.n, state.scorer) }),
        el("td", { cls: "k-" + kind, text: KIND_TITLES[kind] })
      ]);
      if (run === state.selected) tr.className = "selected";
      function open() { state.selected = run; draw(); }
      tr.addEventListener("click", open);
      tr.addEventListener("keydown", function (e) { if (e.key === "Enter") open(); });
      tbody.appendChild(tr);
    });
    count.textContent = view.length + " of " + runs.length + " runs" +
      (view.length > state.limit ? " (first " + state.limit + " shown)" : "");
    more.hidden = view.length <= state.limit;
    drawDetail();
  }

  // Both sides of one run, the fields that differ marked.
  function drawDetail() {
    var run = state.selected;
    detail.textContent = "";
    if (!run || !own(run.k, state.scorer)) { detail.hidden = true; return; }
    detail.hidden = false;
    var b = verdictOf(run.b, state.scorer), n = verdictOf(run.n, state.scorer);
    var fields = [
      ["answer", run.b ? show(run.b.a) : null, run.n ? show(run.n.a) : null],
      ["status", b ? b[0] : null, n ? n[0] : null],
      ["passed", b ? show(b[1]) : null, n ? show(n[1]) : null],
      ["score", b ? score(b[2]) : null, n ? score(n[2]) : null],
      ["rationale", b ? b[3] || "(none)" : null, n ? n[3] || "(none)" : null]
    ];
    detail.appendChild(el("h2", { text: "Run " + run.i + " of scenario " + run.s + ": " +
      KIND_TITLES[run.k[state.scorer]] + " (" + state.scorer + ")" }));
    var rows = fields.map(function (f) {
      var differs = f[1] !== f[2];
      var attrs = { "data-field": f[0], "data-differs": String(differs) };
      function cell(value, side) {
        return el("td", { cls: "pre" + (differs ? " differs" : ""), "data-side": side,
          text: value === null ? "(no such run or verdict on this side)" : value });
      }
      return el("tr", attrs, [el("th", { text: f[0] }), cell(f[1], "base"), cell(f[2], "new")]);
    });
    detail.appendChild(el("table", { "data-testid": "side-by-side" }, [
      el("thead", null, [el("tr", null, [el("th", { text: "" }), el("th", { text: "BASE" }),
        el("th", { text: "NEW" })])]),
      el("tbody", null, rows)
    ]));
    [["BASE", run.b], ["NEW", run.n]].forEach(function (pair) {
      if (pair[1] && pair[1].x) {
        detail.appendChild(el("div", { cls: "muted", text: pair[0] + ": " + pair[1].x }));
      }
    });
  }

  draw();
  document.documentElement.setAttribute("data-ready", "");
})();
