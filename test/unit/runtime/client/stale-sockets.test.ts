// Kept-alive sockets the server has closed while they were idle: a GET sent on one fails with a
// reset before any response. Every idle socket of the pool can be stale at once (the server's
// keep-alive timeout closes them together), so a GET is sent again on each such socket in turn
// until it reaches a live one, as Go's transport does; a write is not sent again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { RestClient } from '../../../../src/runtime/index.js';

/**
 * A raw HTTP/1.1 server: the first request on a connection gets a 200 and the connection stays
 * open; once `stale` is set, a later request on an old connection finds it closed (destroyed, no
 * answer), as a socket the server's keep-alive timeout closed.
 */
async function staleServer() {
  const state = { stale: false, resets: 0, answered: 0 };
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let served = 0;
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffered.slice(0, end);
        const length = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        buffered = buffered.slice(end + 4 + length);
        if (served > 0 && state.stale) {
          state.resets++;
          socket.destroy();
          return;
        }
        served++;
        state.answered++;
        const body = JSON.stringify({ n: state.answered });
        socket.write(
          `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: keep-alive\r\n\r\n${body}`,
        );
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  };
  return { state, url, close };
}

test('a GET reaches the server although every idle socket of the pool is stale', async (t) => {
  const srv = await staleServer();
  const rest = new RestClient({ server: srv.url, qps: 0 });
  t.after(async () => {
    rest.close();
    await srv.close();
  });
  // three GETs at once: three sockets, each kept alive in the pool
  await Promise.all([rest.get('/a'), rest.get('/b'), rest.get('/c')]);
  assert.equal(srv.state.answered, 3);
  srv.state.stale = true;
  assert.deepEqual(await rest.get('/d'), { n: 4 });
  assert.equal(srv.state.resets, 3, 'it went through the three stale sockets, then a new one');
});

test('a write on a stale socket is not sent again: the caller sees the error', async (t) => {
  const srv = await staleServer();
  const rest = new RestClient({ server: srv.url, qps: 0 });
  t.after(async () => {
    rest.close();
    await srv.close();
  });
  await rest.get('/a');
  srv.state.stale = true;
  await assert.rejects(
    rest.request({ method: 'POST', path: '/p', body: { x: 1 } }),
    /POST http:\/\/127\.0\.0\.1:\d+\/p: socket hang up/,
  );
  assert.equal(srv.state.resets, 1);
});
