// Helpers shared by the dashboard's pages; each page's own script runs after this one.
window.tableCompanion = (function () {
  "use strict";
  const textsNode = document.getElementById("texts");
  const texts = textsNode ? JSON.parse(textsNode.textContent) : {};
  const meta = document.querySelector('meta[name="csrf-token"]');
  const $ = (id) => document.getElementById(id);

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    Object.entries(attrs || {}).forEach(([k, v]) => node.setAttribute(k, v));
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  function showError(message) {
    const node = $("error");
    if (node) { node.textContent = message ? texts.error + ": " + message : ""; }
  }

  return { texts, csrf: meta ? meta.content : "", $, el, showError };
})();
