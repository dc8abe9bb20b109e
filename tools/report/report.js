(function () {
  var table = document.getElementById('ops');
  if (!table) return;
  var body = table.tBodies[0];
  var heads = table.tHead.rows[0].cells;
  var filter = document.getElementById('filter');
  var status = document.getElementById('status');
  var shown = document.getElementById('shown');
  var rows = Array.prototype.slice.call(body.rows);
  var sortColumn = -1, sortDir = 1;
  function value(row, col) {
    var cell = row.cells[col];
    var v = cell.getAttribute('data-v');
    if (v !== null) {
      if (v === 'nan') return NaN;
      return parseFloat(v);
    }
    return cell.textContent;
  }
  function compare(a, b) {
    var x = value(a, sortColumn), y = value(b, sortColumn);
    if (typeof x === 'number' && typeof y === 'number') {
      if (isNaN(x) && isNaN(y)) return 0;
      if (isNaN(x)) return 1;
      if (isNaN(y)) return -1;
      return (x - y) * sortDir;
    }
    if (typeof x === 'number') return -1;
    if (typeof y === 'number') return 1;
    return x.localeCompare(y) * sortDir;
  }
  function apply() {
    var text = filter.value.toLowerCase();
    var want = status.value;
    var ordered = rows.slice();
    if (sortColumn >= 0) ordered.sort(compare);
    var count = 0;
    ordered.forEach(function (row) {
      var ok = (!text || row.textContent.toLowerCase().indexOf(text) >= 0) &&
               (want === 'all' || row.getAttribute('data-status') === want);
      row.style.display = ok ? '' : 'none';
      if (ok) count++;
      body.appendChild(row);
    });
    shown.textContent = count + ' of ' + rows.length + ' rows';
    for (var i = 0; i < heads.length; i++) {
      heads[i].classList.remove('sorted-asc', 'sorted-desc');
    }
    if (sortColumn >= 0) {
      heads[sortColumn].classList.add(sortDir > 0 ? 'sorted-asc' : 'sorted-desc');
    }
    var state = [];
    if (sortColumn >= 0) {
      state.push('sort=' + heads[sortColumn].getAttribute('data-key') +
                 (sortDir > 0 ? ':asc' : ':desc'));
    }
    if (filter.value) state.push('filter=' + encodeURIComponent(filter.value));
    if (want !== 'all') state.push('status=' + want);
    document.body.setAttribute('data-state', state.join('&'));
  }
  function sortBy(col, dir) {
    if (dir === undefined) dir = (col === sortColumn) ? -sortDir : 1;
    sortColumn = col;
    sortDir = dir;
    apply();
  }
  for (var i = 0; i < heads.length; i++) {
    (function (col) {
      heads[col].addEventListener('click', function () { sortBy(col); });
    })(i);
  }
  filter.addEventListener('input', apply);
  status.addEventListener('change', apply);
  var hash = decodeURIComponent(location.hash.replace(/^#/, ''));
  hash.split('&').forEach(function (part) {
    var eq = part.indexOf('=');
    if (eq < 0) return;
    var key = part.slice(0, eq), val = part.slice(eq + 1);
    if (key === 'filter') filter.value = val;
    if (key === 'status') status.value = val;
    if (key === 'sort') {
      var name = val.split(':')[0], dir = val.split(':')[1] === 'desc' ? -1 : 1;
      for (var c = 0; c < heads.length; c++) {
        if (heads[c].getAttribute('data-key') === name) { sortColumn = c; sortDir = dir; }
      }
    }
  });
  apply();
})();
