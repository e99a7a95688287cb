/* The interactive leaderboard (evalreport/report/leaderboard_page.py): the table, the measure selector, the
   calibrated toggle, sorting, the name filter and a system's drill-down, over the JSON of
   evalreport/report/leaderboard_data.py. Text from the data is only ever set as textContent, never as HTML.
   No framework and nothing fetched; the chart is drawn by the Vega bundle the page carries, when present. */
(function () {
  'use strict';
  var SVG = 'http://www.w3.org/2000/svg';

  function part(root, name) { return root.querySelector('[data-lb="' + name + '"]'); }

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    if (attrs) { Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); }); }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }

  function isNum(v) { return typeof v === 'number' && isFinite(v); }
  function fmt(v, digits) { return isNum(v) ? v.toFixed(digits === undefined ? 3 : digits) : ''; }
  // Integers as the static tables print them (integer_text in evalreport/report/display.py): with thousands
  // separators from GROUP_DIGITS_FROM on ("12,000", "-25,000"), smaller ones as they are ("9999").
  var GROUP_DIGITS_FROM = 10000, GROUPED = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
  function fmtInt(v) { return isNum(v) ? (Math.abs(v) < GROUP_DIGITS_FROM ? String(v) : GROUPED.format(v)) : ''; }
  function fmtRank(v) { return isNum(v) ? (v % 1 === 0 ? fmtInt(v) : v.toFixed(1)) : ''; }
  function at(arr, i) { return arr ? arr[i] : null; }

  // The compact letter display (evalreport/analyses/letters.py): letters a-z, A-Z, then a1, b1, ...; single
  // letters run together ("ab"), names of two characters and ranges of consecutive letters set off by commas
  // ("ab,C\u2013T": a, b and every letter from C to T; "K\u2013h1,m1").
  var ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ', RANGE = '\u2013';
  function letterIndex(name) {
    return ALPHABET.indexOf(name.charAt(0)) + ALPHABET.length * (name.length > 1 ? parseInt(name.slice(1), 10) : 0);
  }
  // The positions of the letters a display string holds, in order (what Python's letter_set reads).
  function letterIndices(text) {
    var out = [];
    if (!text) { return out; }
    String(text).split(',').forEach(function (token) {
      if (token.indexOf(RANGE) >= 0) {
        var ends = token.split(RANGE), last = letterIndex(ends[1]);
        for (var k = letterIndex(ends[0]); k <= last; k++) { out.push(k); }
      } else if (/[0-9]/.test(token)) {
        out.push(letterIndex(token));
      } else {
        token.split('').forEach(function (c) { out.push(letterIndex(c)); });
      }
    });
    return out.sort(function (a, b) { return a - b; });
  }
  // Two display strings in the order of the letters they hold (the first letter, then the next ones).
  function compareLetters(x, y) {
    var a = letterIndices(x), b = letterIndices(y);
    for (var k = 0; k < Math.min(a.length, b.length); k++) { if (a[k] !== b[k]) { return a[k] - b[k]; } }
    return a.length - b.length;
  }

  function init(root) {
    var data = JSON.parse(part(root, 'data').textContent);
    var template = part(root, 'spec') ? part(root, 'spec').textContent : null;
    var sets = data.kind === 'label_sets';     // label sets: per-label 2 x 2 matrices, no K x K confusion matrix
    var byId = {};
    data.measures.forEach(function (m) { byId[m.id] = m; });
    var state = { measure: data.primary, cal: false, key: 'rank', dir: 1, filter: '', open: null, opener: null };
    var select = part(root, 'measure'), cal = part(root, 'calibrated'), filter = part(root, 'filter');
    var table = part(root, 'table'), tbody = table.tBodies[0], view = null, chartRun = 0;

    // ------------------------------------------------------------------ the measure selector, grouped
    var groups = {};
    data.measures.forEach(function (m) {
      if (!groups[m.group]) {
        groups[m.group] = el('optgroup', { label: m.group });
        select.appendChild(groups[m.group]);
      }
      var opt = el('option', { value: m.id }, m.label + (m.id === data.primary ? ' (primary)' : ''));
      groups[m.group].appendChild(opt);
    });
    select.value = data.primary;

    function rows() {
      var m = byId[state.measure], raw = data.raw[m.id], calib = data.calibrated[m.id];
      var useCal = state.cal && !!calib, src = useCal ? calib : raw;
      var firstRank = Infinity;
      data.systems.forEach(function (s, i) { if (isNum(src.rank[i])) { firstRank = Math.min(firstRank, src.rank[i]); } });
      return data.systems.map(function (name, i) {
        var tier = useCal ? null : at(raw.tier, i);
        var rank = src.rank[i];
        return {
          i: i, system: name, value: src.value[i], rank: rank,
          lo: useCal ? null : at(raw.lo, i), hi: useCal ? null : at(raw.hi, i),
          letters: useCal ? '' : (at(raw.letters, i) || ''), tier: tier,
          tierText: tier === 1 ? (rank === firstRank ? 'first' : 'tied with first') : '',
          rank_lo: useCal ? null : at(raw.rank_lo, i), rank_hi: useCal ? null : at(raw.rank_hi, i),
          p_best: useCal ? null : at(raw.p_best, i), reason: at(raw.reason, i) || ''
        };
      });
    }

    function visible(r) { return !state.filter || r.system.toLowerCase().indexOf(state.filter) >= 0; }

    function compare(a, b) {
      var k = state.key, x = a[k], y = b[k], c;
      if (k === 'system' || k === 'letters' || k === 'tierText') {
        c = k === 'letters' ? compareLetters(x, y) : String(x).localeCompare(String(y));
        if (k !== 'system' && (x === '') !== (y === '')) { return x === '' ? 1 : -1; }   // empty last
      } else {
        if (!isNum(x) && !isNum(y)) { c = 0; } else if (!isNum(x)) { return 1; } else if (!isNum(y)) { return -1; }
        else { c = x - y; }
      }
      if (c === 0) { c = (isNum(a.rank) ? a.rank : Infinity) - (isNum(b.rank) ? b.rank : Infinity); c = state.dir * c; }
      if (c === 0) { c = a.i - b.i; }
      return state.dir * c;
    }

    // ------------------------------------------------------------------ the table
    function whisker(r, lo, hi) {
      var svg = document.createElementNS(SVG, 'svg');
      svg.setAttribute('width', '140'); svg.setAttribute('height', '14'); svg.setAttribute('class', 'lb-whisker');
      svg.setAttribute('aria-hidden', 'true');
      if (!isNum(r.lo) || !isNum(r.hi) || !(hi > lo)) { return svg; }
      function x(v) { return 4 + 132 * (v - lo) / (hi - lo); }
      var line = document.createElementNS(SVG, 'line');
      line.setAttribute('x1', x(r.lo)); line.setAttribute('x2', x(r.hi)); line.setAttribute('y1', 7);
      line.setAttribute('y2', 7); line.setAttribute('stroke', '#0072B2'); line.setAttribute('stroke-width', '2');
      svg.appendChild(line);
      [r.lo, r.hi].forEach(function (v) {
        var cap = document.createElementNS(SVG, 'line');
        cap.setAttribute('x1', x(v)); cap.setAttribute('x2', x(v)); cap.setAttribute('y1', 3); cap.setAttribute('y2', 11);
        cap.setAttribute('stroke', '#0072B2'); cap.setAttribute('stroke-width', '1.5'); svg.appendChild(cap);
      });
      if (isNum(r.value)) {
        var dot = document.createElementNS(SVG, 'circle');
        dot.setAttribute('cx', x(r.value)); dot.setAttribute('cy', 7); dot.setAttribute('r', 3.5);
        dot.setAttribute('fill', r.tier === 1 ? '#E69F00' : '#000'); svg.appendChild(dot);
      }
      return svg;
    }

    function renderTable(list) {
      var lo = Infinity, hi = -Infinity;
      list.forEach(function (r) {
        [r.lo, r.hi, r.value].forEach(function (v) { if (isNum(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); } });
      });
      var frag = document.createDocumentFragment();
      list.forEach(function (r) {
        var tr = el('tr', { 'data-system': r.system });
        if (r.tier === 1) { tr.className = 'lb-first'; }
        if (!visible(r)) { tr.hidden = true; }
        tr.appendChild(el('td', null, fmtRank(r.rank)));
        var name = el('th', { scope: 'row', 'class': 'lb-name' });
        var btn = el('button', { type: 'button', 'aria-controls': root.id + '-drill', 'data-i': String(r.i) }, r.system);
        btn.setAttribute('aria-label', 'Details of ' + r.system);
        name.appendChild(btn); tr.appendChild(name);
        var val = el('td');
        if (isNum(r.value)) { val.textContent = fmt(r.value); }
        else { val.appendChild(el('span', { 'class': 'lb-undef', title: r.reason || 'undefined' }, '\u2014'));
          val.appendChild(el('span', { 'class': 'lb-visually-hidden' }, ' undefined: ' + r.reason)); }
        tr.appendChild(val);
        var iv = el('td', { 'class': 'lb-iv' });
        if (isNum(r.lo)) { iv.appendChild(el('span', null, '[' + fmt(r.lo) + ', ' + fmt(r.hi) + '] ')); }
        iv.appendChild(whisker(r, lo, hi));
        tr.appendChild(iv);
        tr.appendChild(el('td', { 'class': 'lb-letters' }, r.letters));
        var tier = el('td', { 'class': 'lb-tier' });
        if (r.tierText) { tier.appendChild(el('span', { 'class': 'lb-tag' }, r.tierText)); }
        tr.appendChild(tier);
        tr.appendChild(el('td', null, isNum(r.rank_lo) ? (r.rank_lo === r.rank_hi ? fmtInt(r.rank_lo)
          : fmtInt(r.rank_lo) + '\u2013' + fmtInt(r.rank_hi)) : ''));
        tr.appendChild(el('td', null, fmt(r.p_best)));
        frag.appendChild(tr);
      });
      tbody.textContent = '';
      tbody.appendChild(frag);
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) {
        th.setAttribute('aria-sort', th.getAttribute('data-key') === state.key
          ? (state.dir > 0 ? 'ascending' : 'descending') : 'none');
      });
    }

    // ------------------------------------------------------------------ the chart (Vega-Lite, when the bundle is here)
    function renderChart(list) {
      var box = part(root, 'chart');
      if (!box || !template || !window.vegaEmbed) { return Promise.resolve(); }
      var m = byId[state.measure], spec = JSON.parse(template), run = ++chartRun;
      var values = list.map(function (r, pos) {
        return { system: r.system, pos: pos, value: r.value, lo: r.lo, hi: r.hi,
          tier: r.tier === 1 ? 'first or tied with first' : isNum(r.tier) ? 'separated from the first' : 'not tested' };
      });
      spec.data = { values: values };
      var present = {};
      values.forEach(function (v) { present[v.tier] = true; });
      spec.layer.forEach(function (layer) {            // the legend lists only the tiers on the chart
        ['color', 'shape'].forEach(function (ch) {
          var sc = layer.encoding[ch] && layer.encoding[ch].scale;
          if (!sc) { return; }
          var keep = sc.domain.map(function (d, k) { return present[d] ? k : -1; }).filter(function (k) { return k >= 0; });
          sc.range = keep.map(function (k) { return sc.range[k]; });
          sc.domain = keep.map(function (k) { return sc.domain[k]; });
        });
      });
      if (!values.some(function (v) { return isNum(v.lo); })) {     // no intervals (calibrated view): no rules
        spec.layer = spec.layer.filter(function (layer) { return layer.mark.type !== 'rule'; });
      }
      var title = m.label + (state.cal && data.calibrated[m.id] ? ', prevalence-calibrated' : '') +
        (m.higher ? ' (higher is better)' : ' (lower is better)');
      spec.layer.forEach(function (layer) { if (layer.encoding && layer.encoding.x) { layer.encoding.x.title = title; } });
      spec.params[0].value = state.filter;
      if (view) { view.finalize(); view = null; }
      return window.vegaEmbed(box, spec, { actions: false, renderer: 'svg' }).then(function (res) {
        if (run === chartRun) { view = res.view; } else { res.view.finalize(); }
      }).catch(function (e) { box.textContent = 'Chart could not be drawn: ' + e; });
    }

    function status(list) {
      var m = byId[state.measure], shown = list.filter(visible).length, raw = data.raw[m.id];
      var calNow = state.cal && !!data.calibrated[m.id];      // a measure with no calibrated form shows raw values
      var words = 'Ranked by ' + m.label + (calNow ? ' (prevalence-calibrated)' : '') + ', ' +
        (m.higher ? 'higher' : 'lower') + ' is better; ' + shown + ' of ' + list.length + ' systems shown.';
      var none = list.filter(function (r) { return !isNum(r.value); }).length;   // undefined: last, unranked
      if (none) { words += ' ' + none + ' without a value under it (a dash; no rank), listed last.'; }
      var scope = '';
      if (state.cal && !calNow) {
        scope = m.label + ' has no prevalence-calibrated form' + (sets && m.group.indexOf('Example') === 0 ?
          ' (an example-based measure is not made of per-label matrices)' : '') + ': its raw values are shown. ';
      }
      if (calNow) {
        scope = 'Calibrated view: values and ranks after ' + (sets ? 'per-label ' : '') + 'prevalence calibration' +
          (sets ? ' (each label\u2019s 2 x 2 matrix; example-based measures have no calibrated form)' : '') +
          '; intervals, letters, tiers and rank intervals are computed on the raw scores and are not shown here.';
      } else if (!raw.letters) {
        scope += data.letters_scope === 'primary'
          ? 'Letters, tiers and rank intervals exist for the primary measure only in these tables (' +
            byId[data.primary].label + '); choose it to see them.'
          : 'No significance tests in these tables (no resampling).';
      } else if (raw.test) {
        scope += 'Letters: systems sharing a letter are not separated by the ' +
          (raw.test === 'bootstrap' ? 'paired bootstrap' : raw.test) + ' test (Holm-corrected' +
          (isNum(data.settings.alpha) ? ', alpha ' + data.settings.alpha : '') + ').';
        if (raw.letters.some(function (t) { return t && t.indexOf(RANGE) >= 0; })) {
          scope += ' A range such as C' + RANGE + 'F stands for every letter from C to F (C, D, E and F).';
        }
      }
      part(root, 'status').textContent = words;
      part(root, 'scope').textContent = scope;
      table.caption.textContent = 'Systems under ' + m.label + (calNow ? ' (prevalence-calibrated)' : '') +
        '. Select a column heading to sort; select a system for its ' +
        (sets ? 'per-label scores and the labels it adds and drops.' : 'per-class scores and confusion matrix.');
    }

    function renderDefinition() {
      var m = byId[state.measure], box = part(root, 'definition');
      box.textContent = '';
      var dl = el('dl');
      [['Measure', m.label + ' (' + m.id + ')'], ['Direction', m.higher ? 'higher is better' : 'lower is better'],
        ['Range', m.range], ['Definition', m.formula], ['Source', m.source], ['Chance value', m.chance],
        ['Undefined when', m.undefined]].forEach(function (pair) {
        if (pair[1]) { dl.appendChild(el('dt', null, pair[0])); dl.appendChild(el('dd', null, pair[1])); }
      });
      box.appendChild(dl);
    }

    // ------------------------------------------------------------------ a system's drill-down
    function drillTable(caption, head, body, diag) {
      var t = el('table'), tr = el('tr');
      t.appendChild(el('caption', null, caption));
      var thead = el('thead');
      head.forEach(function (h, j) { tr.appendChild(el('th', { scope: j === 0 ? 'col' : 'col' }, h)); });
      thead.appendChild(tr); t.appendChild(thead);
      var tb = el('tbody');
      body.forEach(function (row, r) {
        var line = el('tr');
        line.appendChild(el('th', { scope: 'row' }, row[0]));
        row.slice(1).forEach(function (v, c) { line.appendChild(el('td', diag && r === c ? { 'class': 'lb-diag' } : null, v)); });
        tb.appendChild(line);
      });
      t.appendChild(tb);
      return t;
    }

    function renderDrill() {
      var box = part(root, 'drill');
      if (state.open === null) { box.hidden = true; return; }
      var i = state.open, name = data.systems[i], d = data.drill, m = byId[state.measure];
      box.textContent = '';
      var h = el('h2', { tabindex: '-1', id: root.id + '-drill-title' }, 'System: ' + name);
      box.appendChild(h);
      var close = el('button', { type: 'button', 'class': 'lb-btn', 'data-lb': 'close' }, 'Close details');
      close.addEventListener('click', closeDrill);
      box.appendChild(close);
      var raw = data.raw[m.id];
      box.appendChild(el('p', null, m.label + ': ' + (isNum(raw.value[i]) ? fmt(raw.value[i]) : 'undefined' +
        (raw.reason && raw.reason[i] ? ' (' + raw.reason[i] + ')' : '')) +
        (isNum(at(raw.lo, i)) ? ', interval [' + fmt(raw.lo[i]) + ', ' + fmt(raw.hi[i]) + ']' : '') + '.'));
      var base = (data.baselines || {})[m.id] || [];
      if (base.length) {
        box.appendChild(drillTable('Chance baselines under ' + m.label, ['baseline', 'value'],
          base.map(function (b) { return [b[0], isNum(b[1]) ? fmt(b[1]) : 'undefined']; })));
      }
      if (sets) { labelDrill(box, i, d); box.hidden = false; h.focus(); return; }
      if (d.per_class) {
        // many classes: only those in d.shown (indices into data.labels), as the arrays hold them
        var classes = d.shown ? d.shown.map(function (k) { return data.labels[k]; }) : data.labels;
        box.appendChild(drillTable('Per-class scores', ['class'].concat(d.metrics),
          classes.map(function (c, k) {
            return [c].concat(d.metrics.map(function (_, j) { var v = d.per_class[i][j][k]; return isNum(v) ? fmt(v) : '\u2014'; }));
          })));
        if (d.hidden_note) { box.appendChild(el('p', null, d.hidden_note)); }
      }
      if (d.confusion) {
        box.appendChild(drillTable('Confusion matrix (rows: gold class, columns: predicted class)',
          ['gold \\ predicted'].concat(data.labels),
          data.labels.map(function (c, g) { return [c].concat(d.confusion[i][g].map(fmtInt)); }), true));
      }
      if (d.confusion_note) { box.appendChild(el('p', null, d.confusion_note)); }
      if (!d.per_class && !d.confusion) {
        box.appendChild(el('p', null, 'Per-class scores and confusion matrices are not in these tables ' +
          '(a report\u2019s tables have them; compare --out writes none).'));
      }
      box.hidden = false;
      h.focus();
    }

    function labelDrill(box, i, d) {       // label sets: each label's own 2 x 2 matrix, and labels per item
      // (digits 0: counts, printed as the static tables print integers)
      function cell(v, digits) { return isNum(v) ? (digits === 0 ? fmtInt(Math.round(v)) : fmt(v, digits)) : '\u2014'; }
      var c = d.cardinality, own = c && c.systems[i];
      if (own) {
        box.appendChild(el('p', null, 'Labels per item: ' + cell(own.cardinality, 2) + ' (gold sets ' +
          cell(c.gold && c.gold.cardinality, 2) + '); empty sets: ' + cell(100 * own.empty, 1) + '% of the items (gold ' +
          cell(c.gold && 100 * c.gold.empty, 1) + '%).'));
      }
      if (d.per_label) {
        var head = ['label', 'gold items'].concat(d.metrics).concat(d.added ? ['added', 'dropped'] : []);
        // many labels: only those in d.shown (indices into data.labels), as the arrays hold them
        var names = d.shown ? d.shown.map(function (k) { return data.labels[k]; }) : data.labels;
        box.appendChild(drillTable('Per-label scores (each label\u2019s own 2 x 2 matrix; added: items given the ' +
          'label without it in the gold set, dropped: gold items the label is missing from)', head,
          names.map(function (name, k) {
            var row = [name, cell(d.support && d.support[k], 0)].concat(
              d.metrics.map(function (_, j) { return cell(d.per_label[i][j][k]); }));
            return d.added ? row.concat([cell(d.added[i][k], 0), cell(d.dropped[i][k], 0)]) : row;
          })));
        if (d.hidden_note) { box.appendChild(el('p', null, d.hidden_note)); }
      } else {
        box.appendChild(el('p', null, 'Per-label scores are not in these tables (per_label.csv).'));
      }
    }

    function closeDrill() {
      state.open = null;
      renderDrill();
      if (state.opener) { var b = tbody.querySelector('button[data-i="' + state.opener + '"]'); if (b) { b.focus(); } }
    }

    // ------------------------------------------------------------------ events
    function update(resort) {
      if (resort) { state.key = 'rank'; state.dir = 1; }
      var list = rows().sort(compare);
      renderTable(list);
      status(list);
      renderDefinition();
      if (state.open !== null) { renderDrill(); }
      return renderChart(list.filter(function (r) { return true; }));
    }

    select.addEventListener('change', function () { state.measure = select.value; update(true); });
    cal.addEventListener('change', function () { state.cal = cal.checked; update(true); });
    if (!Object.keys(data.calibrated).length) { cal.disabled = true; }
    filter.addEventListener('input', function () {
      state.filter = filter.value.trim().toLowerCase();
      var list = rows().sort(compare);
      Array.prototype.forEach.call(tbody.rows, function (tr) {
        tr.hidden = !visible({ system: tr.getAttribute('data-system') });
      });
      status(list);
      if (view) { view.signal('q', state.filter).runAsync(); }
    });
    table.tHead.addEventListener('click', function (ev) {
      var th = ev.target.closest('th');
      if (!th || !th.getAttribute('data-key')) { return; }
      var key = th.getAttribute('data-key');
      state.dir = state.key === key ? -state.dir : (key === 'value' && byId[state.measure].higher) ||
        key === 'p_best' || key === 'lo' ? -1 : 1;
      state.key = key;
      renderTable(rows().sort(compare));
    });
    tbody.addEventListener('click', function (ev) {
      var b = ev.target.closest('button[data-i]');
      if (!b) { return; }
      state.open = Number(b.getAttribute('data-i')); state.opener = b.getAttribute('data-i');
      renderDrill();
    });
    part(root, 'drill').addEventListener('keydown', function (ev) { if (ev.key === 'Escape') { closeDrill(); } });
    var defBtn = part(root, 'define');
    defBtn.addEventListener('click', function () {
      var box = part(root, 'definition'), open = box.hidden;
      box.hidden = !open; defBtn.setAttribute('aria-expanded', open ? 'true' : 'false');
    });
    // the downloads: a Blob made when the link is followed, so the page's DOM never holds the data in an attribute
    function download(link, text, type) {
      if (!link) { return; }
      link.addEventListener('click', function () {
        if (link.href.indexOf('blob:') === 0) { URL.revokeObjectURL(link.href); }
        link.href = URL.createObjectURL(new Blob([text()], { type: type }));
      });
    }
    download(part(root, 'csv-link'), function () { return JSON.parse(part(root, 'csv').textContent); }, 'text/csv');
    download(part(root, 'json-link'), function () { return part(root, 'data').textContent; }, 'application/json');
    update(true).then(function () {
      root.setAttribute('data-lb-ready', '1');
      if (window.performance && performance.mark) { performance.mark('lb-ready'); }   // time to interactive
    });
  }

  function views(select) {        // a benchmark's page: one view (consensus, or a task) shown at a time
    select.addEventListener('change', function () {
      Array.prototype.forEach.call(document.querySelectorAll('[data-lb-view]'), function (v) {
        v.hidden = v.getAttribute('data-lb-view') !== select.value;
      });
    });
  }

  function start() {
    Array.prototype.forEach.call(document.querySelectorAll('.lb-root'), init);
    Array.prototype.forEach.call(document.querySelectorAll('select[data-lb-views]'), views);
  }
  if (document.readyState === 'loading') { document.addEventListener('DOMContentLoaded', start); } else { start(); }
})();
