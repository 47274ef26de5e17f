// The HDTrace timeline: a hand-written canvas renderer over the columnar data
// that hdtrace view embeds in the page (window.HDTRACE_DATA, see view/html.py).
// One DOM node per row label and per legend entry at most; calls are pixels.
"use strict";

(function () {
  const data = window.HDTRACE_DATA;
  const calls = data.calls;
  const callCount = calls.row.length;
  // In the order of the families (data.families), from the definition.
  const FAMILY_COLOURS = data.familyColours;
  const LABEL_WIDTH = 120;
  const AXIS_HEIGHT = 26;
  const MIN_BAR_PIXELS = 1.5;     // narrower calls are merged into their pixel column
  const MAX_ROWS_HEIGHT = 16000;   // pixels for all rows together

  const canvas = document.getElementById("timeline");
  const context = canvas.getContext("2d");
  const tooltip = document.getElementById("tooltip");
  const status = document.getElementById("status");

  // --- index: per row and depth, the calls sorted by start, with the longest duration
  let maxDepth = 0;
  for (let i = 0; i < callCount; i++) if (calls.depth[i] > maxDepth) maxDepth = calls.depth[i];
  const lanes = data.rows.map(() => []);
  for (let r = 0; r < data.rows.length; r++)
    for (let d = 0; d <= maxDepth; d++) lanes[r].push({ calls: [], longest: 0 });
  for (let i = 0; i < callCount; i++) {
    const lane = lanes[calls.row[i]][calls.depth[i]];
    lane.calls.push(i);
    lane.longest = Math.max(lane.longest, calls.end[i] - calls.start[i]);
  }
  for (const row of lanes)
    for (const lane of row) lane.calls.sort((a, b) => calls.start[a] - calls.start[b]);
  let runEnd = 1;
  for (let i = 0; i < callCount; i++) if (calls.end[i] > runEnd) runEnd = calls.end[i];

  const state = {
    start: 0, end: runEnd, nested: Boolean(data.nestedShown), messages: true,
    drawn: [], messagesDrawn: 0, rowHeight: 24, dragging: null,
  };

  function familyOf(call) { return data.nameFamily[calls.name[call]]; }
  // Cached: reading clientWidth per call costs more than drawing the call.
  let cachedPlotWidth = 1;
  function plotWidth() { return cachedPlotWidth; }
  function xOf(t) { return LABEL_WIDTH + (t - state.start) / (state.end - state.start) * plotWidth(); }
  function timeAt(x) { return state.start + (x - LABEL_WIDTH) / plotWidth() * (state.end - state.start); }
  function laneCount() { return state.nested ? maxDepth + 1 : 1; }
  // Rows keep a little air between them while they are tall enough.
  function rowPadding() { return state.rowHeight >= 12 ? 2 : 0; }
  function laneHeight() { return (state.rowHeight - 2 * rowPadding()) / laneCount(); }
  function rowTop(row) { return AXIS_HEIGHT + row * state.rowHeight; }
  function laneTop(row, depth) { return rowTop(row) + rowPadding() + depth * laneHeight(); }

  function formatTime(ns) {
    const abs = Math.abs(ns);
    if (abs >= 1e9) return (ns / 1e9).toFixed(abs >= 1e10 ? 2 : 3) + " s";
    if (abs >= 1e6) return (ns / 1e6).toFixed(abs >= 1e7 ? 1 : 2) + " ms";
    if (abs >= 1e3) return (ns / 1e3).toFixed(abs >= 1e4 ? 1 : 2) + " µs";
    return ns.toFixed(0) + " ns";
  }

  // The first index in a lane whose call may still be visible at time t.
  function firstCandidate(lane, t) {
    const list = lane.calls;
    let low = 0, high = list.length;
    const from = t - lane.longest;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (calls.start[list[middle]] < from) low = middle + 1; else high = middle;
    }
    return low;
  }

  function resize() {
    const ratio = window.devicePixelRatio || 1;
    const available = window.innerHeight - canvas.getBoundingClientRect().top - 12;
    const rows = data.rows.length;
    state.rowHeight = Math.max(8, Math.min(state.nested ? 20 * (maxDepth + 1) + 4 : 28,
                                           Math.floor((available - AXIS_HEIGHT) / Math.max(rows, 1))));
    // Browsers refuse canvases much taller than 32,000 pixels: thousands of
    // ranks share the height, down to a fraction of a pixel each.
    if (rows * state.rowHeight > MAX_ROWS_HEIGHT) state.rowHeight = MAX_ROWS_HEIGHT / rows;
    const height = AXIS_HEIGHT + rows * state.rowHeight + 4;
    canvas.style.height = height + "px";
    canvas.width = Math.round(canvas.clientWidth * ratio);
    canvas.height = Math.round(height * ratio);
    context.setTransform(ratio, 0, 0, ratio, 0, 0);
    cachedPlotWidth = Math.max(canvas.clientWidth - LABEL_WIDTH, 1);
  }

  function drawAxis(width) {
    context.fillStyle = "#fafafa";
    context.fillRect(0, 0, width, AXIS_HEIGHT);
    const span = state.end - state.start;
    const rough = span / Math.max(plotWidth() / 110, 1);
    const power = Math.pow(10, Math.floor(Math.log10(rough)));
    const step = [1, 2, 5, 10].map(m => m * power).find(s => s >= rough) || power * 10;
    context.fillStyle = "#333";
    context.strokeStyle = "#e4e4e4";
    context.font = "11px sans-serif";
    context.textBaseline = "middle";
    for (let t = Math.ceil(state.start / step) * step; t <= state.end; t += step) {
      const x = xOf(t);
      context.beginPath();
      context.moveTo(x + 0.5, AXIS_HEIGHT - 6);
      context.lineTo(x + 0.5, canvas.clientHeight);
      context.stroke();
      context.fillText(formatTime(t), x + 3, AXIS_HEIGHT / 2);
    }
  }

  function drawLabels() {
    context.fillStyle = "#fff";
    context.fillRect(0, AXIS_HEIGHT, LABEL_WIDTH, canvas.clientHeight);
    context.font = "12px sans-serif";
    context.textBaseline = "middle";
    data.rows.forEach((row, index) => {
      context.fillStyle = index % 2 ? "#f4f4f4" : "#fff";
      context.fillRect(0, rowTop(index), LABEL_WIDTH - 4, state.rowHeight);
      context.fillStyle = "#222";
      if (state.rowHeight >= 10) context.fillText(row.label, 6, rowTop(index) + state.rowHeight / 2);
    });
  }

  // Draws one lane: wide calls as bars, narrow ones merged per pixel column,
  // coloured by the family with the most time in that column.
  function drawLane(row, depth, lane, width) {
    const top = laneTop(row, depth);
    const height = laneHeight() >= 3 ? laneHeight() - 1 : Math.max(laneHeight(), 0.5);
    let column = -1, columnTime = null, columnCount = 0, columnFirst = -1;
    const flush = () => {
      if (column < 0) return;
      let best = 0;
      for (let f = 1; f < columnTime.length; f++) if (columnTime[f] > columnTime[best]) best = f;
      context.fillStyle = FAMILY_COLOURS[best];
      context.fillRect(column, top, 1, height);
      state.drawn.push({ row, depth, call: columnFirst, x: column, y: top, w: 1, h: height,
                         aggregated: true, count: columnCount });
      column = -1;
    };
    const list = lane.calls;
    for (let k = firstCandidate(lane, state.start); k < list.length; k++) {
      const call = list[k];
      if (calls.start[call] > state.end) break;
      if (calls.end[call] < state.start) continue;
      const x0 = Math.max(xOf(calls.start[call]), LABEL_WIDTH);
      const x1 = Math.min(xOf(calls.end[call]), width);
      if (x1 - x0 >= MIN_BAR_PIXELS) {
        flush();
        context.fillStyle = FAMILY_COLOURS[familyOf(call)];
        context.fillRect(x0, top, x1 - x0, height);
        if (x1 - x0 > 3 && height > 6) {
          context.strokeStyle = "rgba(0,0,0,0.35)";
          context.strokeRect(x0 + 0.5, top + 0.5, x1 - x0 - 1, height - 1);
        }
        state.drawn.push({ row, depth, call, x: x0, y: top, w: x1 - x0, h: height,
                           aggregated: false, count: 1 });
        continue;
      }
      const pixel = Math.floor(x0);
      if (pixel !== column) {
        flush();
        column = pixel;
        columnTime = [0, 0, 0, 0, 0];
        columnCount = 0;
        columnFirst = call;
      }
      columnTime[familyOf(call)] += Math.max(calls.end[call] - calls.start[call], 1);
      columnCount++;
    }
    flush();
  }

  // Messages as arrows from the middle of the send to where the receive
  // completed. Zoomed out, lines that land on the same pixels are drawn once,
  // all in one path, and without heads.
  function drawMessages(width) {
    const messages = data.messages;
    state.messagesDrawn = 0;
    if (!state.messages) return;
    const visible = [];
    const seen = new Set();
    for (let m = 0; m < messages.send.length; m++) {
      const send = messages.send[m], receive = messages.recv[m];
      const x0 = xOf((calls.start[send] + calls.end[send]) / 2);
      const x1 = xOf(messages.completed[m]);
      if ((x0 < LABEL_WIDTH && x1 < LABEL_WIDTH) || (x0 > width && x1 > width)) continue;
      state.messagesDrawn++;
      const key = ((Math.round(x0) * 4099 + Math.round(x1)) * 65537 + calls.row[send]) * 65537 +
        calls.row[receive];
      if (seen.has(key)) continue;
      seen.add(key);
      visible.push(x0, rowTop(calls.row[send]) + state.rowHeight / 2,
                   x1, rowTop(calls.row[receive]) + state.rowHeight / 2);
    }
    context.strokeStyle = "rgba(20,20,20,0.55)";
    context.fillStyle = "rgba(20,20,20,0.7)";
    context.lineWidth = 1;
    context.beginPath();
    for (let k = 0; k < visible.length; k += 4) {
      context.moveTo(visible[k], visible[k + 1]);
      context.lineTo(visible[k + 2], visible[k + 3]);
    }
    context.stroke();
    if (visible.length / 4 > 2000) return;
    context.beginPath();
    for (let k = 0; k < visible.length; k += 4) {
      const [x0, y0, x1, y1] = [visible[k], visible[k + 1], visible[k + 2], visible[k + 3]];
      const angle = Math.atan2(y1 - y0, x1 - x0);
      context.moveTo(x1, y1);
      context.lineTo(x1 - 7 * Math.cos(angle - 0.4), y1 - 7 * Math.sin(angle - 0.4));
      context.lineTo(x1 - 7 * Math.cos(angle + 0.4), y1 - 7 * Math.sin(angle + 0.4));
      context.closePath();
    }
    context.fill();
  }

  function render() {
    const width = canvas.clientWidth;
    context.clearRect(0, 0, width, canvas.clientHeight);
    state.drawn = [];
    drawAxis(width);
    context.save();
    context.beginPath();
    context.rect(LABEL_WIDTH, AXIS_HEIGHT, width - LABEL_WIDTH, canvas.clientHeight - AXIS_HEIGHT);
    context.clip();
    for (let r = 0; r < data.rows.length; r++)
      for (let d = 0; d < laneCount(); d++) drawLane(r, d, lanes[r][d], width);
    drawMessages(width);
    context.restore();
    drawLabels();
    const bars = state.drawn.length;
    status.textContent = `${formatTime(state.start)} – ${formatTime(state.end)}  ·  ` +
      `${callCount} calls, ${bars} bars drawn, ${state.messagesDrawn} messages drawn`;
  }

  let pending = false;
  function schedule() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => { pending = false; render(); });
  }

  function setView(start, end) {
    const span = Math.max(end - start, 10);   // 10 ns at most zoomed in
    const margin = runEnd * 0.05;
    start = Math.max(Math.min(start, runEnd + margin - span), -margin);
    state.start = start;
    state.end = start + span;
    schedule();
  }
  function zoom(factor, aroundX) {
    const t = timeAt(aroundX === undefined ? LABEL_WIDTH + plotWidth() / 2 : aroundX);
    setView(t - (t - state.start) * factor, t + (state.end - t) * factor);
  }
  function pan(fraction) {
    const shift = (state.end - state.start) * fraction;
    setView(state.start + shift, state.end + shift);
  }

  // --- hover
  function callAt(x, y) {
    if (x < LABEL_WIDTH || y < AXIS_HEIGHT) return -1;
    const row = Math.floor((y - AXIS_HEIGHT) / state.rowHeight);
    if (row < 0 || row >= data.rows.length) return -1;
    const depth = Math.floor((y - rowTop(row) - rowPadding()) / laneHeight());
    if (depth < 0 || depth >= laneCount()) return -1;
    const lane = lanes[row][depth];
    const t = timeAt(x), slack = 3 * (state.end - state.start) / plotWidth();
    let best = -1, bestDistance = Infinity;
    for (let k = firstCandidate(lane, t - slack); k < lane.calls.length; k++) {
      const call = lane.calls[k];
      if (calls.start[call] > t + slack) break;
      const distance = t < calls.start[call] ? calls.start[call] - t
        : t > calls.end[call] ? t - calls.end[call] : 0;
      if (distance <= slack && distance < bestDistance) { best = call; bestDistance = distance; }
    }
    return best;
  }

  function describe(call) {
    const row = data.rows[calls.row[call]];
    const lines = [
      data.names[calls.name[call]],
      `${row.label} (${row.host})${calls.depth[call] ? ", nested depth " + calls.depth[call] : ""}`,
      `start ${formatTime(calls.start[call])}, duration ${formatTime(calls.end[call] - calls.start[call])}`,
    ];
    const text = data.attrText[calls.attrs[call]];
    if (text) for (const part of text.split("\n")) lines.push(part);
    return lines;
  }

  function hover(clientX, clientY) {
    const box = canvas.getBoundingClientRect();
    const call = callAt(clientX - box.left, clientY - box.top);
    if (call < 0) { tooltip.style.display = "none"; return null; }
    tooltip.textContent = "";
    describe(call).forEach((line, index) => {
      const div = document.createElement("div");
      div.textContent = line;
      if (index === 0) div.className = "title";
      tooltip.appendChild(div);
    });
    tooltip.style.display = "block";
    const left = Math.min(clientX + 14, window.innerWidth - tooltip.offsetWidth - 8);
    tooltip.style.left = left + window.scrollX + "px";
    tooltip.style.top = clientY + 14 + window.scrollY + "px";
    return call;
  }

  // --- legend: families, then per-function totals
  function buildLegend() {
    const totals = data.names.map(() => ({ calls: 0, time: 0 }));
    for (let i = 0; i < callCount; i++) {
      totals[calls.name[i]].calls++;
      totals[calls.name[i]].time += calls.end[i] - calls.start[i];
    }
    const families = document.getElementById("families");
    data.families.forEach((family, index) => {
      const item = document.createElement("span");
      item.className = "family";
      item.innerHTML = `<i style="background:${FAMILY_COLOURS[index]}"></i>`;
      item.appendChild(document.createTextNode(family));
      families.appendChild(item);
    });
    const body = document.querySelector("#functions tbody");
    data.names.map((name, index) => index)
      .sort((a, b) => totals[b].time - totals[a].time)
      .forEach(index => {
        const tr = document.createElement("tr");
        const swatch = `<i style="background:${FAMILY_COLOURS[data.nameFamily[index]]}"></i>`;
        tr.innerHTML = `<td>${swatch}</td><td></td><td class="n"></td><td class="n"></td>`;
        tr.children[1].textContent = data.names[index];
        tr.children[2].textContent = totals[index].calls;
        tr.children[3].textContent = formatTime(totals[index].time);
        body.appendChild(tr);
      });
    return totals;
  }

  // --- input
  canvas.addEventListener("wheel", event => {
    event.preventDefault();
    const box = canvas.getBoundingClientRect();
    if (event.shiftKey) pan(event.deltaY > 0 ? 0.1 : -0.1);
    else zoom(event.deltaY > 0 ? 1.25 : 0.8, event.clientX - box.left);
  }, { passive: false });
  canvas.addEventListener("mousedown", event => {
    state.dragging = { x: event.clientX, start: state.start, end: state.end };
  });
  window.addEventListener("mouseup", () => { state.dragging = null; });
  window.addEventListener("mousemove", event => {
    if (state.dragging) {
      const shift = (event.clientX - state.dragging.x) / plotWidth() *
        (state.dragging.end - state.dragging.start);
      setView(state.dragging.start - shift, state.dragging.end - shift);
    }
  });
  canvas.addEventListener("mousemove", event => hover(event.clientX, event.clientY));
  canvas.addEventListener("mouseleave", () => { tooltip.style.display = "none"; });
  canvas.addEventListener("dblclick", event => {
    zoom(0.5, event.clientX - canvas.getBoundingClientRect().left);
  });
  const nestedBox = document.getElementById("nested");
  const messagesBox = document.getElementById("messages");
  function setNested(on) { state.nested = on; nestedBox.checked = on; resize(); schedule(); }
  function setMessages(on) { state.messages = on; messagesBox.checked = on; schedule(); }
  nestedBox.checked = state.nested;
  nestedBox.addEventListener("change", () => setNested(nestedBox.checked));
  messagesBox.addEventListener("change", () => setMessages(messagesBox.checked));
  document.getElementById("reset").addEventListener("click", () => setView(0, runEnd));
  window.addEventListener("keydown", event => {
    const actions = {
      "+": () => zoom(0.8), "=": () => zoom(0.8), "-": () => zoom(1.25),
      "ArrowLeft": () => pan(-0.1), "ArrowRight": () => pan(0.1),
      "a": () => pan(-0.1), "d": () => pan(0.1), "w": () => zoom(0.8), "s": () => zoom(1.25),
      "0": () => setView(0, runEnd), "Home": () => setView(0, runEnd),
      "n": () => setNested(!state.nested), "m": () => setMessages(!state.messages),
    };
    const action = actions[event.key];
    if (action && !event.ctrlKey && !event.metaKey) { event.preventDefault(); action(); }
  });
  window.addEventListener("resize", () => { resize(); schedule(); });

  document.getElementById("title").textContent = data.name;
  document.getElementById("summary").textContent =
    `${data.rows.length} rows, ${callCount} calls, ${data.messages.send.length} matched messages` +
    (data.unmatched ? `, ${data.unmatched} unmatched sends/receives` : "") +
    `; time 0 is ${data.originText}`;
  const totals = buildLegend();
  resize();
  render();

  // The page's state for tests and scripts: rows, the bars of the last frame,
  // and hover/zoom entry points.
  window.hdtraceView = {
    rows: data.rows.map(row => row.label),
    get drawn() { return state.drawn; },
    get messagesDrawn() { return state.messagesDrawn; },
    get view() { return { start: state.start, end: state.end, nested: state.nested }; },
    rowTop, laneTop, get rowHeight() { return state.rowHeight; },
    plotLeft: LABEL_WIDTH, get plotWidth() { return plotWidth(); },
    callName: call => data.names[calls.name[call]],
    callCount, runEnd, totals,
    describe, callAt, hover, setView, setNested, setMessages, zoom, pan,
    render: () => { render(); return state.drawn.length; },
  };
})();
