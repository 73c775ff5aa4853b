// Live dashboard: follows /events (server-sent state) and posts the controls to /api/*.
(function () {
  "use strict";
  const main = document.querySelector("main[data-game]");
  if (!main) { return; }
  const { texts, csrf, $, el, showError } = window.tableCompanion;
  let state = null;

  async function post(path, body) {
    showError("");
    try {
      const response = await fetch(path, {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
        body: JSON.stringify(body || {}),
      });
      const data = await response.json();
      if (!response.ok) { showError(data.error || response.statusText); return null; }
      if (data.state) { render(data.state); }
      return data;
    } catch (err) { showError(String(err)); return null; }
  }

  function renderBanner(s) {
    const banner = $("banner");
    banner.textContent = "";
    if (s.over) {
      banner.className = "banner over";
      const names = s.winners.map((i) => s.players[i]).join(", ");
      banner.append(texts.game_over + (names ? " · " + texts.winner + ": " + names : ""));
      return;
    }
    const last = s.last;
    if (!last) { banner.className = "banner waiting"; banner.textContent = texts.waiting; return; }
    const v = last.verdict;
    banner.className = "banner " + (v.legal ? "legal" : "illegal");
    banner.append((v.legal ? texts.legal : texts.illegal) + (last.name ? " · " + last.name : ""));
    const detail = v.legal ? v.messages.join(" · ") || last.text : v.reason;
    banner.append(el("small", {}, detail));
  }

  function renderPlayers(s) {
    document.querySelectorAll("#players tbody tr").forEach((row) => {
      const seat = Number(row.dataset.seat);
      row.classList.toggle("current", s.current_player === seat);
      row.classList.toggle("winner", s.over && s.winners.includes(seat));
      const hand = row.querySelector(".hand");
      if (hand && s.hand_counts) { hand.textContent = s.hand_counts[seat]; }
      const shown = s.shown.length ? s.shown[seat] : null;  // a hand shown before the others
      row.querySelector(".score").textContent = s.scores ? s.scores[seat] : (shown === null ? "–" : shown);
    });
  }

  function renderReveal(s) {
    const box = $("reveal-box");
    const list = $("reveal-list");
    list.textContent = "";
    box.hidden = s.unrevealed.length === 0;
    s.unrevealed.forEach((seat) => {
      const input = el("input", { type: "text", placeholder: texts.reveal_help, "data-seat": seat });
      const button = el("button", { type: "button" }, texts.reveal + ": " + s.players[seat]);
      button.addEventListener("click", () => post("/api/reveal", { player: seat, cards: input.value }));
      const line = el("div", { class: "reveal-seat" });
      line.append(el("label", {}, s.players[seat]), input, button);
      list.append(line);
    });
  }

  function renderPad(s) {
    const pad = $("pad");
    if (!pad) { return; }
    pad.textContent = "";
    s.pad.forEach((option) => {
      const button = el("button", { type: "button" }, option.text + (option.needs_display ? " (+7)" : ""));
      button.addEventListener("click", () => {
        const body = { action: option.action };
        if (option.needs_display) { body.revealed = $("pad-revealed").value; }
        post("/api/pad", body);
      });
      pad.append(button);
    });
  }

  function renderHistory(s) {
    const list = $("history");
    list.textContent = "";
    s.history.forEach((m) => {
      const item = el("li", { class: m.verdict.legal ? "legal" : "illegal" },
        m.turn + ". " + (m.name || "–") + ": " + m.text + (m.verdict.legal ? "" : " · " + m.verdict.reason));
      if (m.corrected) { item.append(" ", el("span", { class: "corrected" }, "(" + texts.corrected + ")")); }
      list.append(item);
    });
  }

  function renderNotices(s) {
    const list = $("notices");
    list.textContent = "";
    $("notice-box").hidden = s.notices.length === 0;
    s.notices.forEach((text, k) => list.append(el("li", { class: k === 0 ? "latest" : "" }, text)));
  }

  function renderSource(s) {
    const p = $("source");
    p.className = "source " + s.source.state;
    p.textContent = texts["source_" + s.source.state] + (s.source.message ? " (" + s.source.message + ")" : "");
  }

  function render(s) {
    if (state && s.version < state.version) { return; }
    const lastChanged = !state || JSON.stringify(state.last) !== JSON.stringify(s.last);
    state = s;
    renderBanner(s);
    renderPlayers(s);
    renderReveal(s);
    renderPad(s);
    renderHistory(s);
    renderNotices(s);
    renderSource(s);
    $("turn").textContent = s.turn;
    $("phase").textContent = s.phase;
    const pause = $("pause");
    if (pause) { pause.disabled = !s.can_pause; }
    document.querySelectorAll(".seat-pause").forEach((button) => { button.disabled = !s.can_pause; });
    $("undo").disabled = s.turn === 0;
    if (lastChanged) { $("correct-action").value = s.last ? JSON.stringify(s.last.action) : ""; }
  }

  function pause() { if (state && state.can_pause) { post("/api/pause"); } }
  function undo() { if (state && state.turn > 0) { post("/api/undo"); } }

  if ($("pause")) { $("pause").addEventListener("click", pause); }
  document.querySelectorAll(".seat-pause").forEach((button) => {
    button.addEventListener("click", () => {
      if (state && state.can_pause) { post("/api/pause", { player: Number(button.dataset.seat) }); }
    });
  });
  $("undo").addEventListener("click", undo);
  $("correct").addEventListener("click", () => {
    let action;
    try { action = JSON.parse($("correct-action").value); } catch (err) { showError(String(err)); return; }
    post("/api/correct", { action: action });
  });
  document.addEventListener("keydown", (event) => {
    const tag = event.target.tagName;
    if (event.key === "Escape" && drawing) { stopDrawing(); return; }
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || event.ctrlKey || event.metaKey || event.altKey) { return; }
    if (event.key === "p" || event.key === "P") { pause(); }
    if (event.key === "u" || event.key === "U") { undo(); }
  });

  // Zones: the kinds this game has, drawn as a rectangle dragged on the camera image (its
  // corners sent in the image's own pixels); "automatic" forgets the drawn ones.
  let drawing = false;
  let dragStart = null;

  function renderZones(listing) {
    const box = $("zone-box");
    if (!box || !listing) { return; }
    box.hidden = listing.kinds.length === 0;
    const select = $("zone-kind");
    if (select.options.length !== listing.kinds.length) {
      select.textContent = "";
      listing.kinds.forEach((kind) => select.append(el("option", { value: kind }, texts["zone_" + kind] || kind)));
    }
    const list = $("zone-list");
    list.textContent = "";
    listing.zones.filter((z) => listing.kinds.includes(z.kind)).forEach((z) => {
      list.append(el("li", {}, (texts["zone_" + z.kind] || z.kind) + ": " + (z.drawn ? texts.zone_drawn : texts.zone_found)));
    });
  }

  function imagePoint(event) {
    const img = $("camera");
    const box = img.getBoundingClientRect();
    const x = Math.min(Math.max(event.clientX - box.left, 0), box.width);
    const y = Math.min(Math.max(event.clientY - box.top, 0), box.height);
    return { x, y, ix: x * img.naturalWidth / box.width, iy: y * img.naturalHeight / box.height };
  }

  function showRect(a, b) {
    const rect = $("zone-rect");
    rect.hidden = false;
    rect.style.left = Math.min(a.x, b.x) + "px";
    rect.style.top = Math.min(a.y, b.y) + "px";
    rect.style.width = Math.abs(a.x - b.x) + "px";
    rect.style.height = Math.abs(a.y - b.y) + "px";
  }

  function stopDrawing() {
    drawing = false;
    dragStart = null;
    $("camera").classList.remove("drawing");
    $("zone-draw").disabled = false;
    $("zone-rect").hidden = true;
  }

  async function loadZones() {
    try {
      const response = await fetch("/zones.json", { credentials: "same-origin" });
      if (response.ok) { renderZones(await response.json()); }
    } catch (err) { /* the zones panel stays as it was */ }
  }

  if ($("zone-box")) {
    const img = $("camera");
    $("zone-draw").addEventListener("click", () => {
      drawing = true;
      img.classList.add("drawing");
      $("zone-draw").disabled = true;
    });
    $("zone-forget").addEventListener("click", async () => {
      const data = await post("/api/zones/forget");
      if (data) { renderZones(data.zones); }
    });
    img.addEventListener("pointerdown", (event) => {
      if (!drawing) { return; }
      event.preventDefault();
      img.setPointerCapture(event.pointerId);
      dragStart = imagePoint(event);
    });
    img.addEventListener("pointermove", (event) => {
      if (drawing && dragStart) { showRect(dragStart, imagePoint(event)); }
    });
    img.addEventListener("pointerup", async (event) => {
      if (!drawing || !dragStart) { return; }
      const a = dragStart;
      const b = imagePoint(event);
      stopDrawing();
      const polygon = [[a.ix, a.iy], [b.ix, a.iy], [b.ix, b.iy], [a.ix, b.iy]];
      const data = await post("/api/zone", { kind: $("zone-kind").value, polygon: polygon });
      if (data) { renderZones(data.zones); }
    });
    loadZones();
  }

  const source = new EventSource("/events");
  source.addEventListener("state", (event) => {
    render(JSON.parse(event.data));
    if ($("zone-box") && $("zone-box").open && !drawing) { loadZones(); }  // the camera may have found new ones
  });
  source.addEventListener("error", () => { $("source").textContent = "…"; });
})();
