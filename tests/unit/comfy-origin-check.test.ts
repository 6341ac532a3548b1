import test from 'ava';
import type { NextFunction, Request, Response } from 'express';
import { isForeignOrigin, originCheck } from '../../adapters/comfyui-protocol-server/origin-check.ts';

// The stand-in's copy of ComfyUI's origin_only_middleware (server.py): a page in a browser must not drive a server on
// the user's own machine, and everything else must get through exactly as ComfyUI lets it.

// Pins the loopback hosts ComfyUI guards: all of 127.0.0.0/8, IPv6 ::1 in brackets, and the name localhost.
test('a foreign Origin is refused for every loopback Host: 127.x.y.z, [::1] and localhost', async (t) => {
  t.true(await isForeignOrigin('127.0.0.1:8188', 'http://evil.example'));
  t.true(await isForeignOrigin('127.5.6.7:8188', 'http://evil.example'));
  t.true(await isForeignOrigin('[::1]:8188', 'http://evil.example'));
  t.true(await isForeignOrigin('localhost:8188', 'http://evil.example'));
});

// Pins ComfyUI's port rule ("to handle weird browsers"): when one side names no port, the other side's port is ignored.
test('a same-host Origin passes when either side names no port', async (t) => {
  t.false(await isForeignOrigin('127.0.0.1:8188', 'http://127.0.0.1'));
  t.false(await isForeignOrigin('127.0.0.1', 'http://127.0.0.1:3000'));
  t.true(await isForeignOrigin('127.0.0.1:8188', 'http://127.0.0.1:3000'), 'both name a port: they must match');
});

// Pins the host part of a netloc: userinfo is not the host ("user@127.0.0.1" is 127.0.0.1).
test('userinfo in the Origin is not taken as part of its host', async (t) => {
  t.false(await isForeignOrigin('127.0.0.1', 'http://user@127.0.0.1'));
});

// Pins what ComfyUI lets through: an Origin without a host ("null", from a sandboxed page or a file) and a request without
// a Host or an Origin header (an HTTP/1.0 client, a script) are not refused.
test('an Origin without a host, or a missing Host or Origin header, is not refused', async (t) => {
  t.false(await isForeignOrigin('127.0.0.1:8188', 'null'));
  t.false(await isForeignOrigin(undefined, 'http://evil.example'));
  t.false(await isForeignOrigin('127.0.0.1:8188', undefined));
});

/** Runs the middleware: what it answered, or 'next' when it let the request through. */
const pass = async (method: string, headers: Record<string, string>): Promise<number | 'next'> => {
  let answered: number | 'next' | null = null;
  const res = {
    status(code: number) {
      answered = code;
      return res;
    },
    end() {
      return res;
    },
  };
  await originCheck({ method, headers } as unknown as Request, res as unknown as Response, (() => (answered ??= 'next')) as NextFunction);
  return answered ?? -1;
};

// Pins: like aiohttp's middleware, any OPTIONS request (a CORS preflight) is answered 200 by the check itself, on every path;
// a foreign preflight to a loopback host is refused first.
test('an OPTIONS request is answered 200 by the check itself; other methods go on; a foreign one is refused', async (t) => {
  t.is(await pass('OPTIONS', { host: '127.0.0.1:8188' }), 200);
  t.is(await pass('GET', { host: '127.0.0.1:8188' }), 'next');
  t.is(await pass('OPTIONS', { host: '127.0.0.1:8188', origin: 'http://evil.example' }), 403);
});
