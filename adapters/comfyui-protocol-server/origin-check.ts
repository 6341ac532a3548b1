import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { NextFunction, Request, Response } from 'express';

interface HostPort {
  hostname: string | null;
  port: number | null;
}

/** urllib's hostname/port split of a netloc ("user@[::1]:8188"). */
const splitNetloc = (netloc: string): HostPort => {
  const hostPart = netloc.slice(netloc.lastIndexOf('@') + 1);
  const bracket = /^\[([^\]]*)\](?::(\d*))?$/.exec(hostPart);
  if (bracket) return { hostname: (bracket[1] ?? '').toLowerCase() || null, port: bracket[2] ? Number(bracket[2]) : null };
  const colon = hostPart.lastIndexOf(':');
  const name = colon >= 0 ? hostPart.slice(0, colon) : hostPart;
  const port = colon >= 0 && /^\d+$/.test(hostPart.slice(colon + 1)) ? Number(hostPart.slice(colon + 1)) : null;
  return { hostname: name.toLowerCase() || null, port };
};

const isLoopbackAddress = (address: string): boolean => {
  const a = address.toLowerCase();
  if (isIP(a) === 4) return a.startsWith('127.');
  return a === '::1' || a.startsWith('::ffff:127.');
};

const isLoopback = async (hostname: string | null): Promise<boolean> => {
  if (hostname === null) return false;
  if (isIP(hostname)) return isLoopbackAddress(hostname);
  try {
    const addresses = await lookup(hostname, { all: true });
    return addresses.length > 0 && addresses.every((entry) => isLoopbackAddress(entry.address));
  } catch {
    return false;
  }
};

/**
 * ComfyUI's origin_only_middleware: when the Host is a loopback name and an Origin names another
 * host, a browser page is trying to drive the local server, so the request is refused.
 */
export const isForeignOrigin = async (host: string | undefined, origin: string | undefined): Promise<boolean> => {
  if (host === undefined || origin === undefined) return false;
  let hostDomain: string | null = host.toLowerCase();
  const originNetloc = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(origin)?.[1] ?? '';
  let originDomain: string | null = originNetloc.toLowerCase();
  const hostParsed = splitNetloc(hostDomain);
  const originParsed = splitNetloc(originNetloc);
  const loopback = await isLoopback(hostParsed.hostname);
  if (originParsed.port === null) hostDomain = hostParsed.hostname;
  if (hostParsed.port === null) originDomain = originParsed.hostname;
  return loopback && !!hostDomain && !!originDomain && hostDomain !== originDomain;
};

export const originCheck = async (req: Request, res: Response, next: NextFunction): Promise<void> => {
  if (await isForeignOrigin(req.headers.host, req.headers.origin)) {
    res.status(403).end();
    return;
  }
  if (req.method === 'OPTIONS') {
    res.status(200).end();
    return;
  }
  next();
};
