// Calibration page: table (markers or 4 clicked corners), lens (board views), deck enrollment.
(function () {
  "use strict";
  const root = document.getElementById("calibrate");
  if (!root) { return; }
  const { texts, csrf, $, el, showError } = window.tableCompanion;
  const KINDS = { gladiola: ["walk", "finish", "start", "gladiola"], valais: ["timeline"] };
  let version = 0;
  let scan = null;

  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, (m, k) => (k in values ? String(values[k]) : m));
  }

  async function call(method, path, body) {
    showError("");
    try {
      const options = { method: method, credentials: "same-origin", headers: {} };
      if (method === "POST") {
        options.headers = { "Content-Type": "application/json", "X-CSRF-Token": csrf };
        options.body = JSON.stringify(body || {});
      }
      const response = await fetch(path, options);
      const data = await response.json();
      if (!response.ok) { showError(data.error || response.statusText); return null; }
      return data;
    } catch (err) { showError(String(err)); return null; }
  }
  const post = (path, body) => call("POST", path, body);

  function imageUrl(path) { version += 1; return path + "?v=" + version; }

  // -- status -----------------------------------------------------------------------------------

  async function loadStatus() {
    const s = await call("GET", "/calibrate/status.json");
    if (!s) { return; }
    $("profile-dir").textContent = s.profile;
    const parts = [];
    if (s.problem) { parts.push(s.problem); }
    if (s.table) { parts.push(texts.cal_have_table); }
    if (s.lens_saved) { parts.push(texts.cal_have_lens + " (" + s.lens_saved.rms_px + " px)"); }
    Object.entries(s.deck).forEach(([game, n]) => { if (n) { parts.push(fill(texts.cal_deck_count, { game: game, n: n })); } });
    $("profile-state").textContent = parts.length ? parts.join(" · ") : texts.cal_none;
    const game = $("deck-game").value;
    $("deck-count").textContent = fill(texts.cal_deck_count, { game: game, n: s.deck[game] === null ? "?" : s.deck[game] });
    renderLens(s.lens_job);
  }

  // -- table ------------------------------------------------------------------------------------

  const canvas = $("still");
  const ctx = canvas.getContext("2d");
  let picture = null;
  let clicking = false;
  let points = [];

  function draw() {
    if (!picture) { return; }
    ctx.drawImage(picture, 0, 0);
    if (!clicking) { return; }
    const r = Math.max(4, canvas.width / 150);
    ctx.lineWidth = Math.max(2, canvas.width / 500);
    ctx.strokeStyle = "#ff40ff";
    ctx.fillStyle = "#ff40ff";
    ctx.font = (r * 3) + "px sans-serif";
    points.forEach(([x, y], i) => {
      ctx.beginPath(); ctx.arc(x, y, r, 0, 2 * Math.PI); ctx.fill();
      ctx.fillText(String(i + 1), x + r * 1.5, y - r * 1.5);
    });
    if (points.length > 1) {
      ctx.beginPath();
      points.forEach(([x, y], i) => (i ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
      if (points.length === 4) { ctx.closePath(); }
      ctx.stroke();
    }
    $("clicked").textContent = fill(texts.cal_clicked, { n: points.length });
    $("use-points").disabled = points.length !== 4;
  }

  function showPicture(path, click) {
    const img = new Image();
    img.addEventListener("load", () => {
      picture = img;
      clicking = click;
      canvas.width = img.naturalWidth;
      canvas.height = img.naturalHeight;
      canvas.classList.toggle("clickable", click);
      draw();
    });
    img.src = imageUrl(path);
  }

  function startClicking() {
    points = [];
    $("save-table").disabled = true;
    $("table-result").textContent = "";
    showPicture("/calibrate/table/still.jpg", true);
  }

  canvas.addEventListener("click", (event) => {
    if (!clicking || points.length >= 4) { return; }
    const box = canvas.getBoundingClientRect();
    const x = (event.clientX - box.left) * canvas.width / box.width;
    const y = (event.clientY - box.top) * canvas.height / box.height;
    points.push([Math.round(x * 10) / 10, Math.round(y * 10) / 10]);
    draw();
  });

  function showTable(data) {
    const t = data.table;
    $("table-result").textContent = fill(texts.cal_table_result, {
      source: texts["cal_src_" + t.source] || t.source, points: t.points_used, rms: t.residual_mm, max: t.max_residual_mm, mmpx: t.mm_per_px,
    });
    $("save-table").disabled = false;
    showPicture("/calibrate/table/overlay.jpg", false);
  }

  function rectangle() {
    const choice = $("rect-kind").value;
    if (choice === "custom") { return { size: $("rect-size").value.trim() }; }
    const [key, value] = choice.split(":");
    return key === "card" ? { card: value } : { size: value };
  }

  $("rect-kind").addEventListener("change", () => { $("rect-size").hidden = $("rect-kind").value !== "custom"; });

  $("find-markers").addEventListener("click", async () => {
    const data = await post("/calibrate/table/markers", {
      paper: $("paper").value, marker_mm: Number($("marker-mm").value),
    });
    if (data) { showTable(data); } else { startClicking(); }
  });
  $("take-still").addEventListener("click", async () => {
    if (await post("/calibrate/table/still")) { startClicking(); }
  });
  $("clear-points").addEventListener("click", () => { points = []; clicking = true; draw(); });
  $("use-points").addEventListener("click", async () => {
    const data = await post("/calibrate/table/points", Object.assign({ points: points }, rectangle()));
    if (data) { showTable(data); }
  });
  $("largest-card").addEventListener("click", async () => {
    const r = rectangle();
    const data = await post("/calibrate/table/points", { card: r.card || "gladiola" });
    if (data) { showTable(data); }
  });
  $("save-table").addEventListener("click", async () => {
    const data = await post("/calibrate/table/save");
    if (data) {
      $("table-result").textContent += " · " + fill(texts.cal_saved, { path: data.profile });
      $("save-table").disabled = true;
      loadStatus();
    }
  });

  // -- lens -------------------------------------------------------------------------------------

  let polling = null;

  function renderLens(job) {
    if (!job) { return; }
    $("views").textContent = fill(texts.cal_views, { n: job.views, min: job.min_views });
    $("compute").disabled = job.views < job.min_views || job.state === "running";
    $("capture").disabled = job.state === "running";
    const result = $("lens-result");
    if (job.state === "running") { result.textContent = texts.cal_running; }
    else if (job.state === "done") { result.textContent = fill(texts.cal_lens_done, { rms: job.rms_px }) + (job.message ? " · " + job.message : ""); }
    else if (job.state === "failed") { result.textContent = texts.cal_lens_failed + ": " + job.message; }
    else { result.textContent = ""; }
    $("lens-view").hidden = !job.view;
    $("lens-preview").hidden = !job.preview;
    if (job.preview && !$("lens-preview").dataset.shown) {
      $("lens-preview").src = imageUrl("/calibrate/lens/preview.jpg");
      $("lens-preview").dataset.shown = "1";
    }
    if (job.state === "running" && polling === null) {
      polling = setInterval(async () => {
        const data = await call("GET", "/calibrate/lens/status");
        if (data && data.lens_job.state !== "running") {
          clearInterval(polling); polling = null;
          renderLens(data.lens_job);
          loadStatus();
        }
      }, 1000);
    }
  }

  $("capture").addEventListener("click", async () => {
    const data = await post("/calibrate/lens/capture", { board: $("board").value.trim() });
    if (data) {
      renderLens(data.lens_job);
      $("lens-view").src = imageUrl("/calibrate/lens/view.jpg");
    }
  });
  $("compute").addEventListener("click", async () => {
    delete $("lens-preview").dataset.shown;
    const data = await post("/calibrate/lens/compute");
    if (data) { renderLens(data.lens_job); }
  });
  $("reset-lens").addEventListener("click", async () => {
    const data = await post("/calibrate/lens/reset");
    if (data) { renderLens(data.lens_job); }
  });

  // -- deck -------------------------------------------------------------------------------------

  function numberField(value, enabled, max) {
    const input = el("input", { type: "number", min: "0", max: String(max), step: "1" });
    input.value = value === null || value === undefined ? "" : String(value);
    input.disabled = !enabled;
    return input;
  }

  function proposalText(card) {
    if (card.known) { return fill(texts.cal_known, { id: card.known }); }
    const parts = [card.kind || "?"];
    if (card.value !== null) { parts.push(card.value + " km"); }
    if (card.blisters !== null) { parts.push(card.blisters + " " + texts.cal_blisters); }
    if (card.year !== null) { parts.push(String(card.year)); }
    return parts.join(", ") + " (" + texts.cal_confidence + " " + card.confidence + ")";
  }

  function renderScan(data) {
    scan = data;
    const body = $("deck-cards").querySelector("tbody");
    body.textContent = "";
    const valais = data.game === "valais";
    data.cards.forEach((card) => {
      const row = el("tr", { "data-n": card.n });
      const include = el("input", { type: "checkbox", class: "include" });
      include.checked = !card.known;
      const kind = el("select", { class: "kind" });
      KINDS[data.game].forEach((k) => kind.append(el("option", { value: k }, k)));
      kind.value = card.kind && KINDS[data.game].includes(card.kind) ? card.kind : KINDS[data.game][0];
      const thumb = el("img", { class: "thumb", alt: "#" + card.n });
      thumb.src = imageUrl("/calibrate/deck/card/" + card.n + ".jpg");
      const cells = [
        el("td", {}, String(card.n)), el("td"), el("td"), el("td"),
        el("td"), el("td"), el("td"), el("td", { class: "proposal" }, proposalText(card)),
      ];
      cells[1].append(thumb);
      cells[2].append(include);
      cells[3].append(kind);
      cells[4].append(Object.assign(numberField(card.value, !valais, 50), { className: "value" }));
      cells[5].append(Object.assign(numberField(card.blisters, !valais, 9), { className: "blisters" }));
      cells[6].append(Object.assign(numberField(card.year, valais, 9999), { className: "year" }));
      cells.forEach((c) => row.append(c));
      body.append(row);
    });
    $("deck-cards").hidden = data.cards.length === 0;
    $("enroll").hidden = data.cards.length === 0;
    $("deck-result").textContent = data.cards.length ? "" : texts.cal_no_cards;
    $("deck-frame").hidden = false;
    $("deck-frame").src = imageUrl("/calibrate/deck/frame.jpg");
  }

  function fieldValue(input) {
    const text = input.value.trim();
    if (text === "" || input.disabled) { return null; }
    const n = Number(text);
    return Number.isInteger(n) ? n : text;
  }

  $("scan").addEventListener("click", async () => {
    const data = await post("/calibrate/deck/scan", { game: $("deck-game").value });
    if (data) { renderScan(data); }
  });
  $("deck-game").addEventListener("change", loadStatus);
  $("enroll").addEventListener("click", async () => {
    if (!scan) { return; }
    const cards = [];
    document.querySelectorAll("#deck-cards tbody tr").forEach((row) => {
      if (!row.querySelector(".include").checked) { return; }
      cards.push({
        n: Number(row.dataset.n), kind: row.querySelector(".kind").value,
        value: fieldValue(row.querySelector(".value")), blisters: fieldValue(row.querySelector(".blisters")),
        year: fieldValue(row.querySelector(".year")),
      });
    });
    const data = await post("/calibrate/deck/enroll", { scan: scan.scan, cards: cards });
    if (data) {
      $("deck-result").textContent = fill(texts.cal_enrolled, { n: data.enrolled.length, total: data.total })
        + (data.warning ? " " + texts.cal_warning + ": " + data.warning : "");
      document.querySelectorAll("#deck-cards tbody tr").forEach((row) => {
        if (row.querySelector(".include").checked) { row.classList.add("done"); row.querySelector(".include").checked = false; }
      });
      loadStatus();
    }
  });

  loadStatus();
})();
