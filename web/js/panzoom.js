// Pan and zoom for an SVG drawn in world units: the viewBox follows a centre
// and a scale (world units per screen pixel). Drag to pan (mouse or one
// finger), wheel or pinch to zoom around the pointer. A drag never turns into
// a click on what lies under it.

export class PanZoom {
  constructor(svg, onChange) {
    this.svg = svg;
    this.onChange = onChange || (() => {});
    this.cx = 0; this.cy = 0; this.scale = 1;
    this.userMoved = false;
    this.pointers = new Map();
    this.dragged = false;
    svg.addEventListener('pointerdown', (e) => this.down(e));
    svg.addEventListener('pointermove', (e) => this.move(e));
    svg.addEventListener('pointerup', (e) => this.up(e));
    svg.addEventListener('pointercancel', (e) => this.up(e));
    svg.addEventListener('wheel', (e) => this.wheel(e), {passive: false});
    // swallow the click that ends a drag
    svg.addEventListener('click', (e) => { if (this.dragged) { e.stopPropagation(); e.preventDefault(); this.dragged = false; } }, true);
    this.ro = new ResizeObserver(() => this.apply());
    this.ro.observe(svg);
  }

  size() {
    const r = this.svg.getBoundingClientRect();
    return [Math.max(1, r.width), Math.max(1, r.height)];
  }

  apply() {
    const [w, h] = this.size();
    const vw = w * this.scale, vh = h * this.scale;
    this.svg.setAttribute('viewBox', `${(this.cx - vw / 2).toFixed(2)} ${(this.cy - vh / 2).toFixed(2)} ${vw.toFixed(2)} ${vh.toFixed(2)}`);
    this.onChange();
  }

  /** Show the world box [x0, y0, x1, y1] whole, with a margin in pixels. */
  fit(box, margin = 24, maxZoomIn = 0.5) {
    const [w, h] = this.size();
    const bw = box[2] - box[0], bh = box[3] - box[1];
    this.scale = Math.max(bw / Math.max(1, w - 2 * margin), bh / Math.max(1, h - 2 * margin), maxZoomIn);
    this.cx = (box[0] + box[2]) / 2;
    this.cy = (box[1] + box[3]) / 2;
    this.apply();
  }

  /** Is the world box wholly visible? */
  shows(box) {
    const [w, h] = this.size();
    const vw = w * this.scale, vh = h * this.scale;
    return box[0] >= this.cx - vw / 2 && box[2] <= this.cx + vw / 2 && box[1] >= this.cy - vh / 2 && box[3] <= this.cy + vh / 2;
  }

  toWorld(clientX, clientY) {
    const r = this.svg.getBoundingClientRect();
    const [w, h] = this.size();
    return [this.cx + (clientX - r.left - w / 2) * this.scale, this.cy + (clientY - r.top - h / 2) * this.scale];
  }

  zoomAt(clientX, clientY, factor) {
    const [wx, wy] = this.toWorld(clientX, clientY);
    const ns = Math.min(20, Math.max(0.05, this.scale * factor));
    const k = ns / this.scale;
    this.cx = wx - (wx - this.cx) * k;
    this.cy = wy - (wy - this.cy) * k;
    this.scale = ns;
    this.userMoved = true;
    this.apply();
  }

  zoomBy(factor) {
    const r = this.svg.getBoundingClientRect();
    this.zoomAt(r.left + r.width / 2, r.top + r.height / 2, factor);
  }

  panBy(dxPx, dyPx) {
    this.cx -= dxPx * this.scale;
    this.cy -= dyPx * this.scale;
    this.userMoved = true;
    this.apply();
  }

  wheel(e) {
    e.preventDefault();
    const f = Math.exp((e.deltaMode === 1 ? e.deltaY * 16 : e.deltaY) * 0.0015);
    this.zoomAt(e.clientX, e.clientY, f);
  }

  down(e) {
    if (e.button !== undefined && e.button !== 0 && e.pointerType === 'mouse') return;
    this.pointers.set(e.pointerId, {x: e.clientX, y: e.clientY, x0: e.clientX, y0: e.clientY});
    this.dragged = false;
    if (this.pointers.size === 2) this.pinch = this.pinchState();
  }

  pinchState() {
    const [a, b] = [...this.pointers.values()];
    return {d: Math.hypot(a.x - b.x, a.y - b.y), mx: (a.x + b.x) / 2, my: (a.y + b.y) / 2};
  }

  move(e) {
    const p = this.pointers.get(e.pointerId);
    if (!p) return;
    const dx = e.clientX - p.x, dy = e.clientY - p.y;
    p.x = e.clientX; p.y = e.clientY;
    if (this.pointers.size >= 2 && this.pinch) {
      const now = this.pinchState();
      if (now.d > 0 && this.pinch.d > 0) this.zoomAt(now.mx, now.my, this.pinch.d / now.d);
      this.panBy(now.mx - this.pinch.mx, now.my - this.pinch.my);
      this.pinch = now;
      this.dragged = true;
      return;
    }
    if (!this.dragged && Math.hypot(e.clientX - p.x0, e.clientY - p.y0) > 5) {
      this.dragged = true;
      this.svg.setPointerCapture?.(e.pointerId);
      this.svg.classList.add('panning');
    }
    if (this.dragged) this.panBy(dx, dy);
  }

  up(e) {
    this.pointers.delete(e.pointerId);
    if (this.pointers.size < 2) this.pinch = null;
    this.svg.classList.remove('panning');
    if (this.dragged) setTimeout(() => { this.dragged = false; }, 0);
  }

  destroy() { this.ro.disconnect(); }
}
