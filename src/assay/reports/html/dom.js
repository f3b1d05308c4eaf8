// The one way the assay pages build elements, shared by the report and the comparison page.
// Every string is set with textContent, never parsed as markup: data is shown as text.
var assayDom = (function () {
  "use strict";
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        if (k === "text") node.textContent = attrs[k];
        else if (k === "cls") node.className = attrs[k];
        else node.setAttribute(k, attrs[k]);
      });
    }
    (children || []).forEach(function (c) { if (c) node.appendChild(c); });
    return node;
  }
  function show(v) { return v === null || v === undefined ? "\u2014" : String(v); }
  return { el: el, show: show };
})();
