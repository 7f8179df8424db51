'use strict';
// The renderer every locsim page shares (docs/development/pages.md): SVG and HTML elements, the map
// (an equirectangular projection around what it shows, a scale bar), linear scales for timelines
// and charts, legends and tables. Each page's template draws its DATA with these.
const SVG_NS = 'http://www.w3.org/2000/svg';
/** The fetch reasons' colours: four distinct hues, none within 30° of the places' magenta (320°). */
const REASONS = {first: '#1f77b4', moved: '#2ca02c', elapsed: '#ff7f0e', retry: '#d62728'};
const EARTH_RADIUS = 6371008.8;  // LocationCore's Sphere.radius

/** An SVG element: attributes (in order), a tooltip, text, child elements. */
function svg(tag, attributes, title, text, children) {
  const element = document.createElementNS(SVG_NS, tag);
  for (const key in attributes || {}) element.setAttribute(key, attributes[key]);
  if (text !== undefined && text !== null) element.textContent = text;
  element.append(...(children || []));
  if (title) element.append(svg('title', null, null, title));
  return element;
}
/** An HTML element: text, attributes (in order), child elements or strings. */
function html(tag, text, attributes, children) {
  const element = document.createElement(tag);
  if (text !== undefined && text !== null) element.textContent = text;
  for (const key in attributes || {}) element.setAttribute(key, attributes[key]);
  element.append(...(children || []));
  return element;
}
const fixed = value => value.toFixed(1);
/** A name from the data inside text of the page's own, isolated (U+2068 … U+2069): a right-to-left
 * name, or one with a direction override (U+202E), cannot reorder the words around it. */
const isolate = text => '\u2068' + text + '\u2069';
/** Seconds since 1970 in UTC, ISO 8601, with `digits` (0 or 3) fraction digits. */
const iso = (seconds, digits) => new Date(Math.round(seconds * 1000)).toISOString().slice(0, digits ? 20 + digits : 19) + 'Z';
/** Maps [d0, d1] onto [r0, r1], clamped to it. */
const linear = (d0, d1, r0, r1) => value => r0 + (r1 - r0) * Math.min(1, Math.max(0, d1 > d0 ? (value - d0) / (d1 - d0) : 0));
/** The largest of `values` (any number of them), or `least`. */
const most = (values, least) => values.reduce((a, b) => Math.max(a, b), least);
/** An ×: two lines centred on (x, y), `size` pixels from the centre to each end. */
const cross = (x, y, size) => [[-1, -1, 1, 1], [-1, 1, 1, -1]].map(([a, b, c, d]) => svg('line', {
  x1: fixed(x + a * size), y1: fixed(y + b * size), x2: fixed(x + c * size), y2: fixed(y + d * size),
  stroke: '#222222', 'stroke-width': 2, 'stroke-linecap': 'round'}));
/** 1, 2 or 5 times a power of ten, at most `metres`. */
function niceLength(metres) {
  if (!(metres > 0) || !isFinite(metres)) return 100;
  const power = Math.pow(10, Math.floor(Math.log10(metres)));
  return [5, 2, 1].map(step => step * power).find(length => length <= metres) || power;
}

/** A length for a scale bar: metres below a kilometre, kilometres from one (`10000 km`, not `10000000 m`). */
const lengthText = metres => metres >= 1000 ? (metres / 1000) + ' km' : metres + ' m';

/**
 * Draws `shapes` on `map` (an <svg> with a width and a height; its <title> stays) in an
 * equirectangular projection about the mean latitude of `extent` ([lat, lon] pairs), padded by
 * 15 % or 150 m, whichever is more, then a scale bar (true at that latitude, 60 to 150 pixels
 * long); `empty` is said when `extent` is empty. Returns the projection ([lat, lon] to [x, y]),
 * or null when nothing was drawn.
 * A shape is {tag, attributes, title, text, children (shapes)}, placed by `at` ([lat, lon]: cx and
 * cy, or x and y moved by dx and dy for text), `points` (a polyline's [lat, lon]s) or `metres` (a
 * radius on the ground); with `cross` it is an × of that size at `at`; `clip` leaves it out off the map.
 */
function drawMap(map, extent, shapes, empty) {
  const width = +map.getAttribute('width'), height = +map.getAttribute('height');
  map.replaceChildren(...[...map.children].filter(child => child.tagName === 'title'));
  if (extent.length === 0) { map.append(svg('text', {x: 20, y: 60}, null, empty)); return null; }
  const radians = Math.PI / 180, lat0 = extent.reduce((sum, c) => sum + c[0], 0) / extent.length, lon0 = extent[0][1];
  const k = Math.cos(lat0 * radians);
  const local = c => [EARTH_RADIUS * (((c[1] - lon0 + 540) % 360) - 180) * radians * k, EARTH_RADIUS * (c[0] - lat0) * radians];
  const box = extent.map(local).reduce((b, [x, y]) => [Math.min(b[0], x), Math.min(b[1], y), Math.max(b[2], x), Math.max(b[3], y)],
    [Infinity, Infinity, -Infinity, -Infinity]);
  const pad = Math.max(150, 0.15 * Math.max(box[2] - box[0], box[3] - box[1]));
  const [minX, minY, maxX, maxY] = [box[0] - pad, box[1] - pad, box[2] + pad, box[3] + pad];
  const scale = Math.min(width / (maxX - minX), height / (maxY - minY));
  const offsetX = (width - (maxX - minX) * scale) / 2, offsetY = (height - (maxY - minY) * scale) / 2;
  const xy = c => { const [x, y] = local(c); return [offsetX + (x - minX) * scale, height - offsetY - (y - minY) * scale]; };
  const make = shape => {
    const attributes = Object.assign({}, shape.attributes);
    if (shape.at) {
      const [x, y] = xy(shape.at);
      if (shape.clip && (x < -10 || x > width + 10 || y < -10 || y > height + 10)) return [];
      if (shape.cross) return cross(x, y, shape.cross);
      Object.assign(attributes, shape.tag === 'text' ? {x: fixed(x + (shape.dx || 0)), y: fixed(y + (shape.dy || 0))} : {cx: fixed(x), cy: fixed(y)});
      if (shape.metres !== undefined) attributes.r = fixed(shape.metres * scale);
    }
    if (shape.points) attributes.points = shape.points.map(c => xy(c).map(fixed).join(',')).join(' ');
    return [svg(shape.tag, attributes, shape.title, shape.text, (shape.children || []).flatMap(make))];
  };
  map.append(...shapes.flatMap(make));
  const bar = niceLength(150 / scale);
  map.append(svg('g', {class: 'scale'}, null, null, [
    svg('line', {x1: 20, y1: height - 20, x2: fixed(20 + bar * scale), y2: height - 20, stroke: '#333', 'stroke-width': 2}),
    svg('text', {x: 20, y: height - 26, 'font-size': 12}, null, lengthText(bar))]));
  return xy;
}

/** Fills a legend: [style of the swatch, label] pairs as swatches, elements as they are. */
function legend(element, items) {
  element.append(...items.map(item => Array.isArray(item)
    ? html('span', null, null, [html('i', null, {class: 'sw', style: item[0]}), item[1]]) : item));
}
/** Appends rows to the table `id`: a cell is text, or [text, attributes]; `tag` is td (default) or th. */
function rows(id, list, tag) {
  document.getElementById(id).append(...list.map(row => html('tr', null, null,
    row.map(cell => Array.isArray(cell) ? html(tag || 'td', cell[0], cell[1]) : html(tag || 'td', String(cell))))));
}
