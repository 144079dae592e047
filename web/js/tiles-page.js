// A developer's page: the procedural tile drawing for every type and rotation,
// with a meeple on each feature, from the `games` reply of the server.
import {Connection} from './conn.js';
import {s, SEAT_COLOURS} from './util.js';
import {drawTile, drawMeeple, tileGeometry} from './carc-tiles.js';
const conn = new Connection(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/`, 'tessera-web-tiles');
conn.addEventListener('ready', async () => {
  const reply = await conn.request({type: 'list_games'});
  const tiles = reply.games.find((g) => g.name === 'carcassonne').tiles;
  const gallery = document.getElementById('gallery');
  gallery.replaceChildren();
  for (const [type, def] of Object.entries(tiles)) {
    for (let rot = 0; rot < 4; rot++) {
      const svg = s('svg', {viewBox: '-4 -4 108 108'});
      svg.append(drawTile(type, def, rot, new Set()));
      const geo = tileGeometry(type, def, rot);
      let i = 0;
      for (const f of Object.values(geo.features)) svg.append(drawMeeple(f.anchor[0], f.anchor[1], i, f.kind, SEAT_COLOURS[i++ % 5]));
      const fig = document.createElement('figure');
      fig.append(svg, `${type} rot ${rot} (${def.count})`);
      fig.dataset.tile = type; fig.dataset.rot = rot;
      gallery.append(fig);
    }
  }
  document.body.dataset.ready = '1';
});
conn.connect();
