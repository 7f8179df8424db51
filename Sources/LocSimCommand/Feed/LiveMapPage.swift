#if Server
/// The live map at `/` of `locsim serve` (docs/guides/feeds.md): one self-contained page (inline CSS,
/// SVG and script; nothing fetched but the server's own API, no tiles), in the replay report's
/// look (Sources/LocSimCommand/Replay/HTMLReport.swift: the same projection, fetch-reason colours,
/// magenta places, scale bar).
///
/// It reads `GET /players/events` (with `fetch`, so it can send the token given as
/// `#token=T` in the address) and draws every player's trail and position, the fetch circles and
/// the places its map session shows (`map` events), with pause/resume and speed buttons that call
/// `POST /players/{name}/control`.
enum LiveMapPage {
    static let bytes = Array(html.utf8)

    static let html = #"""
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8">
        <title>locsim live map</title>
        <style>
        body{font:14px/1.4 -apple-system,system-ui,sans-serif;margin:24px;color:#222;background:#fafafa}
        h1{font-size:20px;margin:0 0 4px} .sub{color:#666;margin:0 0 16px}
        #map{background:#fff;border:1px solid #ddd;display:block;margin:0 0 12px}
        .legend span{display:inline-block;margin-right:14px} .sw{display:inline-block;width:10px;height:10px;border-radius:5px;margin-right:4px;vertical-align:middle}
        table{border-collapse:collapse;margin:0 0 12px} td,th{padding:2px 12px 2px 0;text-align:left;vertical-align:middle} th{color:#666;font-weight:normal}
        button{font:inherit;margin-right:4px;padding:1px 8px}
        </style></head><body>
        <h1>locsim live map</h1><p class="sub" id="status">connecting…</p>
        <svg id="map" xmlns="http://www.w3.org/2000/svg" width="900" height="640" viewBox="0 0 900 640"><title>Players, trails, fetch circles and places (local equirectangular projection)</title></svg>
        <p class="legend"><span><i class="sw" style="background:#1f77b4"></i>fetch: first</span><span><i class="sw" style="background:#2ca02c"></i>fetch: moved</span><span><i class="sw" style="background:#ff7f0e"></i>fetch: elapsed</span><span><i class="sw" style="background:#d62728"></i>fetch: retry</span><span><i class="sw" style="background:hsl(320,70%,48%)"></i>place on the player's map</span><span>faint circles: fetch radius</span></p>
        <table id="players"><thead><tr><th>player</th><th>state</th><th>speed</th><th>progress</th><th>fixes</th><th></th></tr></thead><tbody></tbody></table>
        <script>
        'use strict';
        const REASONS = {first: '#1f77b4', moved: '#2ca02c', elapsed: '#ff7f0e', retry: '#d62728'};  // HTMLReport.reasonColours
        const TRAIL = ['#333','#1f4e79','#6b3d00','#0b5d1e','#5b2a86','#7a1f1f'];
        const token = new URLSearchParams(location.hash.slice(1)).get('token');
        const headers = token ? {'Authorization': 'Bearer ' + token} : {};
        const players = new Map();
        const statusLine = document.getElementById('status');
        const map = document.getElementById('map');
        let drawing = false;

        function entry(name) {
          if (!players.has(name)) players.set(name, {trail: [], info: null, fetches: [], places: [], colour: TRAIL[players.size % TRAIL.length]});
          return players.get(name);
        }
        function addFix(p, fix) {
          if (typeof fix.lat !== 'number' || typeof fix.lon !== 'number') return;
          p.trail.push([fix.lat, fix.lon]);
          if (p.trail.length > 5000) p.trail.shift();
        }
        function handle(event, data) {
          const o = JSON.parse(data);
          if (event === 'fix') {
            const p = entry(o.player); addFix(p, o.fix);
            if (p.info) p.info.fixes += 1;
          } else if (event === 'state') {
            const p = entry(o.player.name); p.info = o.player;
            if (o.reason === 'current' && o.player.fix) addFix(p, o.player.fix);
            table();
          } else if (event === 'removed') {
            players.delete(o.player); table();
          } else if (event === 'map') {
            const p = entry(o.player);
            if (o.fetch) { p.fetches.push(o.fetch); if (p.fetches.length > 200) p.fetches.shift(); }
            if (o.places) p.places = o.places;
          }
          if (!drawing) { drawing = true; setTimeout(draw, 50); }  // a timer, not requestAnimationFrame: a tab in the background keeps up too
        }
        async function listen() {
          try {
            const response = await fetch('/players/events', {headers});
            if (!response.ok) { statusLine.textContent = 'GET /players/events: HTTP ' + response.status + (response.status === 401 ? ' (open this page as /#token=YOUR_TOKEN)' : ''); return; }
            statusLine.textContent = 'live: ' + location.host;
            const reader = response.body.getReader(); const decoder = new TextDecoder(); let buffer = '';
            for (;;) {
              const {value, done} = await reader.read(); if (done) break;
              buffer += decoder.decode(value, {stream: true});
              let end;
              while ((end = buffer.indexOf('\n\n')) >= 0) {
                const frame = buffer.slice(0, end); buffer = buffer.slice(end + 2);
                let event = 'message', data = '';
                for (const line of frame.split('\n')) {
                  if (line.startsWith('event: ')) event = line.slice(7); else if (line.startsWith('data: ')) data += line.slice(6);
                }
                if (data) handle(event, data);
              }
            }
            statusLine.textContent = 'the server closed the stream; reconnecting…';
          } catch (error) { statusLine.textContent = 'disconnected (' + error + '); reconnecting…'; }
          players.clear(); setTimeout(listen, 2000);
        }
        async function control(name, body) {
          const response = await fetch('/players/' + encodeURIComponent(name) + '/control', {method: 'POST', headers: Object.assign({'Content-Type': 'application/json'}, headers), body: JSON.stringify(body)});
          const answer = await response.json();
          if (!response.ok) { statusLine.textContent = name + ': ' + (answer.error ? answer.error.message : response.status); return; }
          entry(name).info = answer; table();
        }
        function text(tag, content, attributes) {
          const element = document.createElement(tag); element.textContent = content;
          for (const key in attributes || {}) element.setAttribute(key, attributes[key]);
          return element;
        }
        function table() {
          const body = document.querySelector('#players tbody'); body.replaceChildren();
          for (const [name, p] of players) {
            if (!p.info) continue;
            const info = p.info, row = document.createElement('tr'); row.id = 'player-' + name; row.dataset.state = info.state;
            row.append(text('td', name), text('td', info.state, {class: 'state'}), text('td', info.speed + '×'),
              text('td', info.fraction !== undefined ? (100 * info.fraction).toFixed(1) + ' %' : Math.round(info.offset) + ' s'),
              text('td', String(info.fixes), {class: 'fixes'}));
            const cell = document.createElement('td');
            if (info.controllable) {
              const paused = info.state === 'paused';
              const toggle = text('button', paused ? 'resume' : 'pause', {'data-player': name, 'data-action': paused ? 'resume' : 'pause'});
              toggle.onclick = () => control(name, {action: paused ? 'resume' : 'pause'});
              cell.append(toggle);
              for (const speed of [1, 5, 20, 100]) {
                const button = text('button', speed + '×', {'data-player': name, 'data-action': 'speed', 'data-speed': String(speed)});
                button.onclick = () => control(name, {action: 'speed', speed});
                cell.append(button);
              }
            }
            row.append(cell); body.append(row);
          }
        }
        function svg(tag, attributes, title) {
          const element = document.createElementNS('http://www.w3.org/2000/svg', tag);
          for (const key in attributes) element.setAttribute(key, attributes[key]);
          if (title) { const t = document.createElementNS('http://www.w3.org/2000/svg', 'title'); t.textContent = title; element.append(t); }
          return element;
        }
        function niceLength(metres) {
          const steps = [1, 2, 5]; let base = Math.pow(10, Math.floor(Math.log10(Math.max(metres, 1e-9))));
          for (;;) { for (const s of steps) if (s * base >= metres) return s * base; base *= 10; }
        }
        function draw() {
          drawing = false;
          const width = 900, height = 640, R = 6371008.8;
          const all = [];
          for (const p of players.values()) { for (const c of p.trail) all.push(c); for (const f of p.fetches) all.push([f.lat, f.lng]); }
          const children = [map.firstElementChild];
          if (all.length === 0) { map.replaceChildren(...children, svg('text', {x: 20, y: 60}, null)); map.lastChild.textContent = 'No fixes yet.'; return; }
          const lat0 = all.reduce((s, c) => s + c[0], 0) / all.length, lon0 = all[0][1], k = Math.cos(lat0 * Math.PI / 180);
          const local = c => [R * (((c[1] - lon0 + 540) % 360) - 180) * Math.PI / 180 * k, R * (c[0] - lat0) * Math.PI / 180];
          const points = all.map(local);
          let minX = Math.min(...points.map(p => p[0])), maxX = Math.max(...points.map(p => p[0]));
          let minY = Math.min(...points.map(p => p[1])), maxY = Math.max(...points.map(p => p[1]));
          const pad = Math.max(150, 0.15 * Math.max(maxX - minX, maxY - minY));
          minX -= pad; maxX += pad; minY -= pad; maxY += pad;
          const scale = Math.min(width / (maxX - minX), height / (maxY - minY));
          const offsetX = (width - (maxX - minX) * scale) / 2, offsetY = (height - (maxY - minY) * scale) / 2;
          const screen = c => { const [x, y] = local(c); return [offsetX + (x - minX) * scale, height - offsetY - (y - minY) * scale]; };
          const f = v => v.toFixed(1);
          for (const [name, p] of players) {
            const group = svg('g', {class: 'player', 'data-name': name});
            for (const fetch of p.fetches) {
              const [x, y] = screen([fetch.lat, fetch.lng]), colour = REASONS[fetch.reason] || '#888';
              group.append(svg('circle', {class: 'fetch-radius', cx: f(x), cy: f(y), r: f(fetch.radius * scale), fill: 'none', stroke: colour, 'stroke-opacity': 0.18}));
              group.append(svg('circle', {class: 'fetch fetch-' + fetch.reason, cx: f(x), cy: f(y), r: 5, fill: colour, stroke: '#fff'}, 'fetch (' + fetch.reason + ')'));
            }
            for (const place of p.places) {
              const [x, y] = screen([place.lat, place.lng]);
              if (x < -10 || x > width + 10 || y < -10 || y > height + 10) continue;
              group.append(svg('circle', {class: 'place', cx: f(x), cy: f(y), r: 3.5, fill: 'hsl(320,70%,48%)'}, place.name));
            }
            if (p.trail.length > 1) group.append(svg('polyline', {class: 'track', points: p.trail.map(c => screen(c).map(f).join(',')).join(' '), fill: 'none', stroke: p.colour, 'stroke-width': 1.5, 'stroke-opacity': 0.8}));
            if (p.trail.length > 0) {
              const last = p.trail[p.trail.length - 1], [x, y] = screen(last);
              group.append(svg('circle', {class: 'position', cx: f(x), cy: f(y), r: 6, fill: p.colour, stroke: '#fff', 'stroke-width': 2, 'data-lat': last[0], 'data-lon': last[1]}, name));
              group.append(svg('text', {x: f(x + 9), y: f(y - 9), 'font-size': 12}, null)); group.lastChild.textContent = name;
            }
            children.push(group);
          }
          const bar = niceLength(150 / scale), scaleBar = svg('g', {class: 'scale'});
          scaleBar.append(svg('line', {x1: 20, y1: height - 20, x2: f(20 + bar * scale), y2: height - 20, stroke: '#333', 'stroke-width': 2}));
          scaleBar.append(svg('text', {x: 20, y: height - 26, 'font-size': 12})); scaleBar.lastChild.textContent = bar + ' m';
          children.push(scaleBar);
          map.replaceChildren(...children);
          for (const [name, p] of players) { const cell = document.querySelector('#player-' + CSS.escape(name) + ' .fixes'); if (cell && p.info) cell.textContent = String(p.info.fixes); }
        }
        listen();
        </script>
        </body></html>

        """#
}
#endif  // Server
