// craftbt tree view: one component for the live viewer (/viewer) and `craftbt render -f html`.
// An indented drawing (a row a node, the depth across), in an SVG that fits its pane, zooms (wheel,
// + and -) and pans (drag); a finished subtree folds to one row (click a node to open or fold it);
// "follow" keeps the running node in view. Names reach the page only through textContent and
// setAttribute: nothing a tree author writes is parsed as markup.
"use strict";
(function (global) {
  const SVG = "http://www.w3.org/2000/svg";
  const ROW = 30, BOX_H = 24, INDENT = 26, BOX_W = 250;
  const STATUS = {RUNNING: "#1f6fd1", SUCCESS: "#1b8a3a", FAILURE: "#c62828", INVALID: "#9e9e9e"};
  const LABEL = {RUNNING: "running", SUCCESS: "succeeded", FAILURE: "failed", INVALID: "not run yet"};
  const KIND_FILL = {sequence: "#ffe0b2", selector: "#d6f5f5", parallel: "#fff5b0", decorator: "#f4f4fb",
                     action: "#ececec", behaviour: "#ececec"};
  const KIND_MARK = {sequence: "→", selector: "?", parallel: "⇉", decorator: "◇", action: "", behaviour: ""};

  function el(tag, attrs, parent) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
    if (parent) parent.appendChild(node);
    return node;
  }

  class TreeView {
    constructor(pane) {
      this.pane = pane;
      this.svg = el("svg", {width: "100%", height: "100%", class: "treeview", tabindex: "0"}, pane);
      this.vp = el("g", {class: "viewport"}, this.svg);
      this.edges = el("g", {class: "edges"}, this.vp);
      this.boxes = el("g", {class: "boxes"}, this.vp);
      this.scale = 1; this.tx = 10; this.ty = 10;
      this.follow = true;
      this.autofold = true;  // fold finished subtrees (the live viewer); a report shows them open
      this.byId = {}; this.rootId = null; this.status = {}; this.open = {}; this.items = {};
      this.pending = false;
      this.onfollow = null;
      this._wire();
    }

    _wire() {
      let drag = null;
      this.svg.addEventListener("wheel", e => {
        e.preventDefault();
        const r = this.svg.getBoundingClientRect();
        this.zoomAt(e.deltaY < 0 ? 1.15 : 1 / 1.15, e.clientX - r.left, e.clientY - r.top);
      }, {passive: false});
      this.svg.addEventListener("pointerdown", e => {
        if (e.button !== 0) return;
        drag = {x: e.clientX, y: e.clientY, tx: this.tx, ty: this.ty, moved: false};
      });
      window.addEventListener("pointermove", e => {
        if (!drag) return;
        const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
        if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 4) return;
        drag.moved = true;
        this.setFollow(false);
        this.tx = drag.tx + dx; this.ty = drag.ty + dy; this._transform();
      });
      window.addEventListener("pointerup", e => {
        if (drag && !drag.moved) {
          const g = e.target.closest ? e.target.closest("g.node") : null;
          if (g) this.toggle(g.getAttribute("data-id"));
        }
        drag = null;
      });
    }

    setFollow(on) {
      this.follow = on;
      if (this.onfollow) this.onfollow(on);
      if (on) this.schedule();
    }

    setTree(tree) {
      this.byId = {}; this.status = {}; this.open = {}; this.items = {};
      while (this.edges.firstChild) this.edges.removeChild(this.edges.firstChild);
      while (this.boxes.firstChild) this.boxes.removeChild(this.boxes.firstChild);
      for (const n of tree.nodes) this.byId[n.id] = n;
      this.rootId = tree.root;
      const parent = {};
      for (const n of tree.nodes) for (const c of n.children) parent[c] = n.id;
      this.parent = parent;
      // every node gets its group once; layout only moves and hides them
      for (const n of tree.nodes) this._make(n);
      for (const n of tree.nodes) this.setStatus(n.id, n.status || "INVALID", true);
      this.layout();
      this.fitWidth();
    }

    _make(n) {
      const g = el("g", {class: "node", "data-id": n.id, "data-kind": n.kind}, this.boxes);
      const rect = el("rect", {width: BOX_W, height: BOX_H, rx: n.children.length ? 3 : 11,
                               fill: KIND_FILL[n.kind] || "#fff", "stroke-width": 2.5}, g);
      const title = el("title", {}, g);
      title.textContent = n.name + (n.capability ? " — " + n.capability : "");
      const label = el("text", {x: 8, y: 16, class: "label"}, g);
      const mark = KIND_MARK[n.kind] ? KIND_MARK[n.kind] + " " : "";
      const name = n.name.length > 34 ? n.name.slice(0, 33) + "…" : n.name;
      label.textContent = mark + name;
      const badge = el("text", {x: BOX_W + 6, y: 16, class: "badge"}, g);
      const edge = el("path", {class: "edge", fill: "none", stroke: "#aaa"}, this.edges);
      this.items[n.id] = {g, rect, badge, edge};
    }

    setStatus(id, status, quiet) {
      const item = this.items[id];
      if (!item) return;
      this.status[id] = status;
      item.g.setAttribute("data-status", status);
      item.rect.setAttribute("stroke", STATUS[status] || "#000");
      if (!quiet) this.schedule();
    }

    toggle(id) {
      const n = this.byId[id];
      if (!n || !n.children.length) return;
      this.open[id] = !this._isOpen(id);
      this.schedule();
    }

    // a finished subtree folds, unless the user opened it; the root never folds
    _isOpen(id) {
      if (id in this.open) return this.open[id];
      const s = this.status[id];
      return id === this.rootId || !this.autofold || !(s === "SUCCESS" || s === "FAILURE");
    }

    schedule() {
      if (this.pending) return;
      this.pending = true;
      requestAnimationFrame(() => { this.pending = false; this.layout(); });
    }

    layout() {
      if (this.rootId === null) return;
      let row = 0, width = 0;
      const place = (id, depth, visible) => {
        const item = this.items[id], n = this.byId[id];
        if (!visible) {
          item.g.setAttribute("display", "none"); item.edge.setAttribute("display", "none");
          for (const c of n.children) place(c, depth + 1, false);
          return;
        }
        const x = depth * INDENT, y = row * ROW;
        row += 1;
        width = Math.max(width, x + BOX_W + 60);
        item.x = x; item.y = y;
        item.g.removeAttribute("display");
        item.g.setAttribute("transform", `translate(${x},${y})`);
        const open = this._isOpen(id);
        item.g.setAttribute("data-open", n.children.length ? String(open) : "leaf");
        item.badge.textContent = n.children.length && !open ? `▸ ${this._count(id)} inside` : "";
        const p = this.parent[id];
        if (p !== undefined) {
          const px = this.items[p].x + 10, py = this.items[p].y + BOX_H;
          item.edge.removeAttribute("display");
          item.edge.setAttribute("d", `M${px},${py} V${y + BOX_H / 2} H${x}`);
        }
        for (const c of n.children) place(c, depth + 1, open);
      };
      place(this.rootId, 0, true);
      this.contentW = width; this.contentH = row * ROW;
      if (this.follow) this.reveal(this.runningId());
    }

    _count(id) {
      let k = 0;
      const walk = i => { for (const c of this.byId[i].children) { k += 1; walk(c); } };
      walk(id);
      return k;
    }

    runningId() {
      let id = this.rootId, found = null;
      while (id !== null && id !== undefined && this.status[id] === "RUNNING") {
        found = id;
        id = this.byId[id].children.find(c => this.status[c] === "RUNNING");
      }
      return found;
    }

    // pan (never zoom out below a readable scale) so that node `id` lies well inside the pane
    reveal(id) {
      if (id === null || id === undefined) return;
      let item = this.items[id];
      // a folded ancestor hides it: show the deepest visible one instead
      while (item.g.getAttribute("display") === "none" && this.parent[id] !== undefined) {
        id = this.parent[id]; item = this.items[id];
      }
      const W = this.pane.clientWidth, H = this.pane.clientHeight, m = 24;
      if (this.scale < 0.6) this.scale = 0.6;
      const left = this.tx + item.x * this.scale, top = this.ty + item.y * this.scale;
      const right = left + BOX_W * this.scale, bottom = top + BOX_H * this.scale;
      if (left < m || right > W - m) this.tx = Math.min(10, W / 3 - item.x * this.scale);
      if (top < m || bottom > H - m) this.ty = H * 0.4 - item.y * this.scale;
      this._transform();
    }

    zoomAt(factor, cx, cy) {
      const s = Math.min(3, Math.max(0.1, this.scale * factor));
      this.tx = cx - (cx - this.tx) * (s / this.scale);
      this.ty = cy - (cy - this.ty) * (s / this.scale);
      this.scale = s;
      this._transform();
    }

    fit() {
      const W = this.pane.clientWidth, H = this.pane.clientHeight;
      this.scale = Math.max(0.1, Math.min(1.5, (W - 20) / this.contentW, (H - 20) / this.contentH));
      this.tx = 10; this.ty = 10;
      this._transform();
    }

    fitWidth() {
      const W = this.pane.clientWidth;
      this.scale = Math.max(0.6, Math.min(1.2, (W - 20) / (this.contentW || 1)));
      this.tx = 10; this.ty = 10;
      this._transform();
      if (this.follow) this.reveal(this.runningId());
    }

    _transform() {
      this.vp.setAttribute("transform", `translate(${this.tx},${this.ty}) scale(${this.scale})`);
    }
  }

  // the legend: one swatch a status, with what it means
  function legend(into) {
    for (const [status, colour] of Object.entries(STATUS)) {
      const span = document.createElement("span");
      span.className = "swatch";
      span.setAttribute("data-status", status);
      span.style.borderColor = colour;
      span.textContent = LABEL[status];
      into.appendChild(span);
    }
  }

  global.CraftbtTreeView = {TreeView, legend, STATUS};
})(window);
